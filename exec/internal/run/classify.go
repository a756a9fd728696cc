package run

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"io"
	"net"
	"syscall"

	"github.com/valyala/fasthttp"

	"github.com/tressi/tressi/h1"
	"github.com/tressi/tressi/h2"
	"github.com/tressi/tressi/results"
)

// DialError marks an error that happened while connecting, so a timeout
// there is a connect_timeout rather than a request timeout.
type DialError struct{ Err error }

func (e *DialError) Error() string { return "connect: " + e.Err.Error() }
func (e *DialError) Unwrap() error { return e.Err }

// ErrAborted is what dials fail with once the run was aborted.
var ErrAborted = errors.New("run aborted")

// Classify maps a request error to one word of the error vocabulary. The
// order matters: the most specific cause wins.
func Classify(err error) results.ErrorKind {
	if err == nil {
		return results.None
	}
	var de *DialError
	dial := errors.As(err, &de)
	var dnsErr *net.DNSError
	switch {
	case errors.Is(err, ErrAborted):
		return results.Interrupted
	case errors.Is(err, h2.ErrUnprocessed):
		return results.Unprocessed
	case errors.As(err, &dnsErr):
		return results.DNS
	case errors.Is(err, fasthttp.ErrBodyTooLarge), errors.Is(err, h1.ErrBodyTooLarge):
		return results.BodyTooLarge
	case isTLSError(err):
		return results.TLS
	case errors.Is(err, syscall.ECONNREFUSED):
		return results.ConnectRefused
	case errors.Is(err, syscall.EMFILE), errors.Is(err, syscall.ENFILE),
		errors.Is(err, syscall.EADDRNOTAVAIL), errors.Is(err, syscall.ENOBUFS), errors.Is(err, syscall.ENOMEM):
		return results.LocalResources
	case dial && isTimeout(err), errors.Is(err, fasthttp.ErrDialTimeout):
		return results.ConnectTimeout
	case isTimeout(err), errors.Is(err, fasthttp.ErrNoFreeConns):
		// ErrNoFreeConns only comes back when the wait for a connection
		// outlived the request's timeout.
		return results.Timeout
	case isH2Reset(err):
		return results.Reset
	case errors.Is(err, syscall.ECONNRESET), errors.Is(err, syscall.EPIPE), errors.Is(err, syscall.ECONNABORTED),
		errors.Is(err, fasthttp.ErrConnectionClosed), errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF),
		errors.Is(err, net.ErrClosed):
		return results.Reset
	case dial:
		return results.ConnectRefused
	}
	// What is left is fasthttp failing to parse what the server sent.
	return results.Protocol
}

// isH2Reset: the server reset an HTTP/2 stream, sent GOAWAY with an
// error, or closed the connection with streams open. An HTTP/2 protocol
// error of the server's is left to Protocol.
func isH2Reset(err error) bool {
	var se *h2.StreamError
	var ce *h2.ConnError
	return errors.As(err, &se) || errors.Is(err, h2.ErrConnClosed) || (errors.As(err, &ce) && ce.Remote)
}

func isTimeout(err error) bool {
	if errors.Is(err, fasthttp.ErrTimeout) {
		return true
	}
	var t interface{ Timeout() bool }
	return errors.As(err, &t) && t.Timeout()
}

func isTLSError(err error) bool {
	var (
		rh    tls.RecordHeaderError
		alert tls.AlertError
		cv    *tls.CertificateVerificationError
		ua    x509.UnknownAuthorityError
		hn    x509.HostnameError
		ci    x509.CertificateInvalidError
	)
	var te *tlsError
	var op *net.OpError
	// A TLS alert from the server ("remote error"): in TLS 1.3 a rejected
	// client certificate is only said after the client's handshake ended,
	// on the first read.
	return errors.As(err, &te) || (errors.As(err, &op) && op.Op == "remote error") || errors.Is(err, fasthttp.ErrTLSHandshakeTimeout) || errors.As(err, &rh) || errors.As(err, &alert) ||
		errors.As(err, &cv) || errors.As(err, &ua) || errors.As(err, &hn) || errors.As(err, &ci)
}

// ClosedByPeer reports whether err is the peer closing the connection:
// an end of stream or a reset, reading or writing.
func ClosedByPeer(err error) bool {
	return errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) || errors.Is(err, syscall.ECONNRESET) ||
		errors.Is(err, syscall.EPIPE)
}
