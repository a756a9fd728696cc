package tlsloop

import (
	"crypto/tls"
	"io"
	"net"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// Socket is a connection's raw, non-blocking I/O as the loop does it:
// EAGAIN when the call would block, EINTR when a signal interrupted it.
type Socket interface {
	Recv(b []byte) (int, syscall.Errno)
	Send(b []byte) (int, syscall.Errno)
}

// ErrWouldBlock is what Conn.Read returns when no more plaintext can be had
// before the socket is readable again.
var ErrWouldBlock error = wouldBlock{}

type wouldBlock struct{}

func (wouldBlock) Error() string   { return "tlsloop: would block" }
func (wouldBlock) Timeout() bool   { return false }
func (wouldBlock) Temporary() bool { return true } // crypto/tls keeps going after a temporary error

var _ net.Error = wouldBlock{}

// Conn is one TLS connection after its handshake, driven by the loop.
type Conn struct {
	tc      *tls.Conn
	w       *wire
	resumed bool
	version uint16
}

// Write encrypts p and sends what the socket takes now; the rest waits for
// Flush (see Pending). An error is the socket's and ends the connection.
func (c *Conn) Write(p []byte) error {
	_, err := c.tc.Write(p)
	return err
}

// Pending reports whether ciphertext waits for the socket to be writable.
func (c *Conn) Pending() bool { return c.w.off < len(c.w.out) }

// Flush sends the waiting ciphertext; with Pending still true afterwards
// the socket is full and the loop should wait until it is writable.
func (c *Conn) Flush() error { return c.w.flush() }

// Read reads plaintext into b: ErrWouldBlock when none can be had until the
// socket is readable again, io.EOF when the server closed the connection.
// Post-handshake messages are handled on the way, and may queue bytes to
// send (see Pending).
func (c *Conn) Read(b []byte) (int, error) { return c.tc.Read(b) }

// Resumed reports whether the handshake resumed an earlier session.
func (c *Conn) Resumed() bool { return c.resumed }

// Version is the negotiated TLS version (tls.VersionTLS12, ...).
func (c *Conn) Version() uint16 { return c.version }

// wire is the net.Conn under a tls.Conn: during the handshake a blocking
// view of the socket, after it the loop's own socket.
type wire struct {
	hs   net.Conn // the handshake's view; nil once the loop drives
	sock Socket
	out  []byte // ciphertext not yet sent: out[off:]
	off  int
	err  error // a write that failed: the connection is done
}

func (w *wire) Read(b []byte) (int, error) {
	if w.hs != nil {
		return w.hs.Read(b)
	}
	if len(b) == 0 {
		return 0, nil
	}
	for {
		n, errno := w.sock.Recv(b)
		switch {
		case errno == unix.EINTR:
			continue
		case errno == unix.EAGAIN:
			return 0, ErrWouldBlock
		case errno != 0:
			return 0, errno
		case n == 0:
			return 0, io.EOF
		}
		return n, nil
	}
}

// Write never reports a write that would block: crypto/tls would remember
// it as the connection's end. The bytes wait in out instead.
func (w *wire) Write(b []byte) (int, error) {
	if w.hs != nil {
		return w.hs.Write(b)
	}
	if w.err != nil {
		return 0, w.err
	}
	total := len(b)
	if w.off == len(w.out) {
		w.out, w.off = w.out[:0], 0
		for len(b) > 0 {
			n, errno := w.sock.Send(b)
			if errno == unix.EINTR {
				continue
			}
			if errno == unix.EAGAIN {
				break
			}
			if errno != 0 {
				w.err = errno
				return 0, errno
			}
			b = b[n:]
		}
	}
	w.out = append(w.out, b...)
	return total, nil
}

func (w *wire) flush() error {
	if w.err != nil {
		return w.err
	}
	for w.off < len(w.out) {
		n, errno := w.sock.Send(w.out[w.off:])
		if errno == unix.EINTR {
			continue
		}
		if errno == unix.EAGAIN {
			return nil
		}
		if errno != 0 {
			w.err = errno
			return errno
		}
		w.off += n
	}
	w.out, w.off = w.out[:0], 0
	return nil
}

func (w *wire) Close() error {
	if w.hs != nil {
		return w.hs.Close()
	}
	return nil // the loop owns the socket
}

func (w *wire) LocalAddr() net.Addr {
	if w.hs != nil {
		return w.hs.LocalAddr()
	}
	return nil
}

func (w *wire) RemoteAddr() net.Addr {
	if w.hs != nil {
		return w.hs.RemoteAddr()
	}
	return nil
}

// Deadlines only mean something during the handshake: after it, the loop
// keeps time.
func (w *wire) SetDeadline(t time.Time) error {
	if w.hs != nil {
		return w.hs.SetDeadline(t)
	}
	return nil
}

func (w *wire) SetReadDeadline(t time.Time) error {
	if w.hs != nil {
		return w.hs.SetReadDeadline(t)
	}
	return nil
}

func (w *wire) SetWriteDeadline(t time.Time) error {
	if w.hs != nil {
		return w.hs.SetWriteDeadline(t)
	}
	return nil
}
