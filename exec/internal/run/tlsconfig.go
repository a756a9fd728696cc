package run

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"os"
	"strings"
	"sync/atomic"

	"github.com/tressi/tressi/compile"
	"github.com/tressi/tressi/exec/internal/record"
	"github.com/tressi/tressi/results"
)

// TLSStats counts one run's TLS handshakes, on either engine.
type TLSStats struct {
	handshakes atomic.Int64
	resumed    atomic.Int64
}

// tlsVersions maps a plan's version names to crypto/tls's.
var tlsVersions = map[string]uint16{"1.2": tls.VersionTLS12, "1.3": tls.VersionTLS13}

// NewTLSConfig builds the client configuration of an https target: trust
// (the system roots, or ca_file's certificates instead), the name verified
// and sent as SNI, the client certificate for servers that ask for one,
// the versions, and a session cache so a new connection to a server seen
// before resumes its session instead of paying a full handshake. Every
// handshake, resumed or not, is counted in st.
func NewTLSConfig(t *compile.Target, st *TLSStats) (*tls.Config, error) {
	cfg := &tls.Config{
		ServerName:         t.TLS.ServerName,
		InsecureSkipVerify: t.InsecureSkipVerify, //nolint:gosec // the plan asked for it, and meta.json records it
		MinVersion:         tls.VersionTLS12,
		MaxVersion:         tls.VersionTLS13,
	}
	if cfg.ServerName == "" {
		cfg.ServerName = hostOnly(t.Host, t.Addr)
	}
	if v, ok := tlsVersions[t.TLS.MinVersion]; ok {
		cfg.MinVersion = v
	}
	if v, ok := tlsVersions[t.TLS.MaxVersion]; ok {
		cfg.MaxVersion = v
	}
	if t.TLS.CAFile != "" {
		pem, err := os.ReadFile(t.TLS.CAFile)
		if err != nil {
			return nil, fmt.Errorf("target %q: ca_file: %w", t.Name, err)
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("target %q: ca_file %s holds no PEM certificate", t.Name, t.TLS.CAFile)
		}
		cfg.RootCAs = pool
	}
	if t.TLS.CertFile != "" || t.TLS.KeyFile != "" {
		cert, err := tls.LoadX509KeyPair(t.TLS.CertFile, t.TLS.KeyFile)
		if err != nil {
			return nil, fmt.Errorf("target %q: client certificate %s / %s: %w", t.Name, t.TLS.CertFile, t.TLS.KeyFile, err)
		}
		cfg.Certificates = []tls.Certificate{cert}
	}
	if !t.TLS.NoResumption {
		cfg.ClientSessionCache = tls.NewLRUClientSessionCache(64)
	}
	// VerifyConnection runs on every handshake, resumed ones included, and
	// whether or not certificates are verified: the one place both engines
	// pass through.
	cfg.VerifyConnection = func(cs tls.ConnectionState) error {
		st.handshakes.Add(1)
		if cs.DidResume {
			st.resumed.Add(1)
		}
		return nil
	}
	return cfg, nil
}

// hostOnly is the host name of a Host header or address, without port or
// IPv6 brackets.
func hostOnly(host, addr string) string {
	if host == "" {
		host = addr
	}
	if h, _, err := net.SplitHostPort(host); err == nil {
		return h
	}
	return strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")
}

// tlsError is a failed TLS handshake with the reason in words a user acts
// on: the samples and reports show it beside the `tls` error kind.
type tlsError struct {
	reason string
	err    error
}

func (e *tlsError) Error() string { return "tls: " + e.reason + ": " + e.err.Error() }
func (e *tlsError) Unwrap() error { return e.err }

// AsTLSError wraps a handshake error with its reason; timeouts, resets and
// the run's abort keep their own kinds.
func AsTLSError(err error) error {
	if err == nil || errors.Is(err, ErrAborted) || isTimeout(err) {
		return err
	}
	if r := tlsReason(err); r != "" {
		return &tlsError{reason: r, err: err}
	}
	return err
}

// tlsReason names why a handshake failed, or "" when the error is not
// TLS's (a reset during the handshake stays a reset).
func tlsReason(err error) string {
	var (
		ua x509.UnknownAuthorityError
		hn x509.HostnameError
		ci x509.CertificateInvalidError
		rh tls.RecordHeaderError
		op *net.OpError
		ae tls.AlertError
	)
	switch {
	case errors.As(err, &ua):
		return "unknown authority (the server's certificate is not signed by a trusted CA; set ca_file to trust a private one)"
	case errors.As(err, &hn):
		return fmt.Sprintf("name mismatch (the certificate is not valid for %q; set server_name to the name it carries)", hn.Host)
	case errors.As(err, &ci):
		switch ci.Reason {
		case x509.Expired:
			return "expired (the server's certificate is outside its validity period)"
		case x509.NotAuthorizedToSign:
			return "invalid certificate (signed by a certificate that is not a CA)"
		case x509.IncompatibleUsage:
			return "invalid certificate (not meant for server authentication)"
		}
		return "invalid certificate"
	case errors.As(err, &rh):
		return "not TLS (the server answered something else; is the target plain http?)"
	case errors.As(err, &op) && op.Op == "remote error":
		// The server refused the handshake with an alert: a client
		// certificate missing or rejected, no common version or cipher.
		return "handshake failure (the server sent " + strings.TrimPrefix(op.Err.Error(), "tls: ") + ")"
	case errors.As(err, &ae):
		return "handshake failure (" + ae.Error() + ")"
	}
	var cv *tls.CertificateVerificationError
	if errors.As(err, &cv) {
		return "certificate rejected"
	}
	if strings.HasPrefix(err.Error(), "tls: ") {
		return "handshake failure"
	}
	return ""
}

// TLSMeta is meta.json's tls object: nil when no target uses https.
func (cs *clients) TLSMeta(targets []compile.Target) *record.MetaTLS {
	if len(cs.Tls) == 0 {
		return nil
	}
	m := &record.MetaTLS{Handshakes: cs.tlsStats.handshakes.Load(), Resumed: cs.tlsStats.resumed.Load()}
	for _, t := range targets {
		if t.Scheme == "https" && t.InsecureSkipVerify {
			m.InsecureSkipVerify = append(m.InsecureSkipVerify, t.Name)
		}
	}
	return m
}

// errDetail is a failed request's error in words for its sample: a TLS
// failure met after the handshake (an alert on the first read) gets its
// reason as a failed handshake does.
func errDetail(err error) string {
	var te *tlsError
	if !errors.As(err, &te) && Classify(err) == results.TLS {
		if r := tlsReason(err); r != "" {
			return (&tlsError{reason: r, err: err}).Error()
		}
	}
	return err.Error()
}
