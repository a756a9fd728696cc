package loop

import (
	"time"

	"github.com/tressi/tressi/compile"
	"github.com/tressi/tressi/exec/internal/run"
	"github.com/tressi/tressi/exec/internal/sys"
	"github.com/tressi/tressi/tlsloop"
	"golang.org/x/sys/unix"
)

// tlsTransport is the transport of an https target's loop connections:
// crypto/tls driven by the loop (package tlsloop), with the target's
// configuration shared by every connection of the run, so a new
// connection resumes the session an earlier one was given. The handshake
// must end within the connect timeout, counted from the dial. protos is
// what ALPN offers (nil: nothing).
func tlsTransport(ex *run.Executor, t *compile.Target, protos []string) run.TransportFactory {
	cfg := ex.Cl.Tls[t.Name]
	if protos != nil {
		// Only the loop speaks HTTP/2: the fasthttp engine's copy of the
		// configuration offers nothing, so a server never picks h2 for it.
		cfg = cfg.Clone()
		cfg.NextProtos = protos
	}
	connect := t.ConnectTimeout
	return func(wake func()) (run.Transport, error) {
		return tlsloop.Client(cfg, wake, time.Now().Add(connect)), nil
	}
}

var _ run.Transport = (*tlsloop.Conn)(nil)

// idleRecords reads what a server sent on an idle TLS connection: records
// that carry no plaintext, such as a TLS 1.3 session ticket sent after the
// last response, leave it idle (true); plaintext nobody asked for, the
// server's close or an error end it (false).
func (l *evloop) idleRecords(c *lconn) bool {
	if l.cipher == nil {
		l.cipher = make([]byte, maxReadBuf)
	}
	for {
		n, errno := sys.RawRead(c.fd, l.cipher)
		switch {
		case errno == unix.EINTR:
			continue
		case errno == unix.EAGAIN:
			return l.flushTransport(c) // a KeyUpdate may want an answer
		case errno != 0 || n == 0:
			return false
		}
		if c.tr.Feed(l.cipher[:n]) != nil {
			return false
		}
		if got, err := c.tr.Read(c.rbuf[c.rlen:]); got > 0 || err != nil {
			return false
		}
	}
}
