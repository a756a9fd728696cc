package tlsloop

import (
	"context"
	"crypto/tls"
	"errors"
	"io"
	"net"
	"sync"
	"sync/atomic"
	"time"
)

// ErrWouldBlock is what the conn under tls.Conn returns once established
// when the loop has fed it nothing more: crypto/tls keeps what it read of
// a record and returns, to be called again after the next Feed.
var ErrWouldBlock error = wouldBlock{}

type wouldBlock struct{}

func (wouldBlock) Error() string   { return "tlsloop: would block" }
func (wouldBlock) Timeout() bool   { return false }
func (wouldBlock) Temporary() bool { return true } // what crypto/tls checks

var _ net.Error = wouldBlock{}

// errClosed ends a handshake whose Conn was closed.
var errClosed = errors.New("tlsloop: connection closed during the handshake")

// Conn is one client TLS connection whose socket an event loop owns. Every
// method but the wake function's calls happen on the loop's goroutine.
type Conn struct {
	tc   *tls.Conn
	w    *pipe
	wake func()

	ready  atomic.Bool // the handshake succeeded: plaintext may flow
	failed atomic.Bool // the handshake failed: Err says why
	hsErr  error       // written before failed is set
	eof    bool        // the server sent close_notify

	resumed  bool
	version  uint16
	protocol string // chosen by ALPN

	// What Read knows of crypto/tls's input, to spare it the Read that
	// would find no record: each such Read allocates (tls.Conn boxes a
	// reader around the pipe) and then learns there is nothing. records
	// counts the whole records fed; at a Read that found none, all of them
	// had been read (seen). From then on a Read that returned plaintext
	// without filling its buffer took at least one record with its whole
	// plaintext, so when such Reads number the records fed since, no whole
	// record is left.
	records   recordCounter
	known     bool // since the last Read that found no record, no Read filled its buffer
	seen      int  // records.whole at that Read
	dataReads int  // Reads since then that returned plaintext
}

// recordCounter counts the whole TLS records in a byte stream fed to it
// in pieces: each is a 5-byte header whose last two bytes are the length
// of what follows.
type recordCounter struct {
	head  [5]byte
	hn    int // header bytes of the current record seen
	left  int // bytes of its body still to come, once the header is whole
	whole int
}

func (r *recordCounter) feed(b []byte) {
	for len(b) > 0 {
		if r.hn < len(r.head) {
			n := copy(r.head[r.hn:], b)
			r.hn, b = r.hn+n, b[n:]
			if r.hn < len(r.head) {
				return
			}
			r.left = int(r.head[3])<<8 | int(r.head[4])
		}
		n := min(r.left, len(b))
		r.left, b = r.left-n, b[n:]
		if r.left == 0 {
			r.whole++
			r.hn = 0
		}
	}
	if r.hn == len(r.head) && r.left == 0 { // a record with an empty body
		r.whole++
		r.hn = 0
	}
}

// Client starts the client handshake of cfg. wake is called, from another
// goroutine, whenever the handshake has bytes for the socket (Pending) and
// when it ended (Ready or Err). The handshake fails at deadline.
func Client(cfg *tls.Config, wake func(), deadline time.Time) *Conn {
	c := &Conn{w: newPipe(), wake: wake}
	c.w.wake = wake
	c.tc = tls.Client(c.w, cfg)
	go c.handshake(deadline)
	return c
}

func (c *Conn) handshake(deadline time.Time) {
	// At the deadline crypto/tls closes the pipe, which ends the wait for
	// bytes, and returns the context's error (a timeout).
	ctx, cancel := context.WithDeadline(context.Background(), deadline)
	defer cancel()
	err := c.tc.HandshakeContext(ctx)
	if err == nil {
		st := c.tc.ConnectionState()
		c.resumed, c.version, c.protocol = st.DidResume, st.Version, st.NegotiatedProtocol
	}
	closed := c.w.establish()
	if err != nil {
		c.hsErr = err
		c.failed.Store(true)
	} else {
		c.ready.Store(true)
	}
	if !closed {
		c.wake()
	}
}

// Ready reports whether the handshake succeeded: plaintext may flow.
func (c *Conn) Ready() bool { return c.ready.Load() }

// Err is why the handshake failed, or nil while it runs or once it
// succeeded.
func (c *Conn) Err() error {
	if c.failed.Load() {
		return c.hsErr
	}
	return nil
}

// Resumed reports whether the handshake resumed an earlier session; valid
// once Ready.
func (c *Conn) Resumed() bool { return c.resumed }

// Version is the negotiated TLS version (tls.VersionTLS12, ...); valid once
// Ready.
func (c *Conn) Version() uint16 { return c.version }

// NegotiatedProtocol is the protocol ALPN chose ("h2", "http/1.1"), ""
// when the server chose none; valid once Ready.
func (c *Conn) NegotiatedProtocol() string { return c.protocol }

// Feed takes bytes read from the socket.
func (c *Conn) Feed(b []byte) error {
	if err := c.Err(); err != nil {
		return err
	}
	c.records.feed(b)
	c.w.feed(b)
	return nil
}

// Read moves decrypted plaintext into p: 0 and no error when there is none
// until more is fed. Post-handshake messages are handled on the way and may
// leave bytes to send (Pending). After the server's close_notify Read
// returns io.EOF: the connection carries nothing more.
func (c *Conn) Read(p []byte) (int, error) {
	if c.eof {
		return 0, io.EOF
	}
	if !c.ready.Load() {
		return 0, c.Err()
	}
	if c.known && c.dataReads == c.records.whole-c.seen {
		c.seen, c.dataReads = c.records.whole, 0
		return 0, nil // every whole record fed has been read
	}
	n, err := c.tc.Read(p)
	switch {
	case err == ErrWouldBlock:
		c.known, c.seen, c.dataReads = true, c.records.whole, 0
		return n, nil
	case err == nil:
		if n == len(p) {
			c.known = false // plaintext may be left over, read with no record
		} else if n > 0 {
			c.dataReads++
		}
		return n, nil
	case errors.Is(err, io.EOF):
		c.eof = true
		return n, io.EOF
	}
	return n, err
}

// Write encrypts p; the ciphertext waits in Pending. It fails only before
// the handshake succeeded.
func (c *Conn) Write(p []byte) (int, error) {
	if !c.ready.Load() {
		if err := c.Err(); err != nil {
			return 0, err
		}
		return 0, errors.New("tlsloop: write before the handshake ended")
	}
	return c.tc.Write(p)
}

// Pending is the ciphertext waiting for the socket; Sent says n bytes of
// it went out.
func (c *Conn) Pending() []byte { return c.w.pending() }

// Sent records that n bytes of Pending were written to the socket.
func (c *Conn) Sent(n int) { c.w.sent(n) }

// EOF says the socket ended: a handshake still running reads what was fed
// before it (an alert, most likely) and then fails, waking the loop.
func (c *Conn) EOF() { c.w.shut(io.EOF) }

// Close ends a handshake still running (without waking the loop again);
// the socket is the loop's to close.
func (c *Conn) Close() { c.w.shut(errClosed) }

// pipe is the net.Conn under tls.Conn: bytes the loop fed on one side,
// bytes for the loop to send on the other. During the handshake its reads
// block until fed; once established they never block.
type pipe struct {
	mu      sync.Mutex
	cond    sync.Cond
	in      []byte // fed, not yet read: in[inOff:]
	inOff   int
	out     []byte // for the socket, not yet sent: out[outOff:]
	outOff  int
	blocks  bool  // reads wait for bytes: the handshake runs
	err     error // the pipe was shut: reads fail with it
	wake    func()
	closedC bool // Close was called: wake nobody
}

func newPipe() *pipe {
	p := &pipe{blocks: true}
	p.cond.L = &p.mu
	return p
}

func (p *pipe) feed(b []byte) {
	p.mu.Lock()
	if p.inOff == len(p.in) {
		p.in, p.inOff = p.in[:0], 0
	}
	p.in = append(p.in, b...)
	if p.blocks {
		p.cond.Signal()
	}
	p.mu.Unlock()
}

// establish ends the handshake: reads stop blocking. It reports whether
// the Conn was closed meanwhile.
func (p *pipe) establish() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.blocks = false
	return p.closedC
}

func (p *pipe) shut(err error) {
	p.mu.Lock()
	if p.err == nil {
		p.err = err
	}
	if err == errClosed {
		p.closedC = true
	}
	p.cond.Broadcast()
	p.mu.Unlock()
}

func (p *pipe) Read(b []byte) (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for p.inOff == len(p.in) {
		if p.err != nil && p.blocks {
			return 0, p.err
		}
		if !p.blocks {
			return 0, ErrWouldBlock
		}
		p.cond.Wait()
	}
	n := copy(b, p.in[p.inOff:])
	p.inOff += n
	return n, nil
}

func (p *pipe) Write(b []byte) (int, error) {
	p.mu.Lock()
	if p.blocks && p.err != nil {
		p.mu.Unlock()
		return 0, p.err
	}
	p.out = append(p.out, b...)
	hs := p.blocks
	p.mu.Unlock()
	if hs {
		p.wake() // the handshake's bytes: the loop sends them
	}
	return len(b), nil
}

func (p *pipe) pending() []byte {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.out[p.outOff:]
}

func (p *pipe) sent(n int) {
	p.mu.Lock()
	p.outOff += n
	if p.outOff >= len(p.out) {
		p.out, p.outOff = p.out[:0], 0
	}
	p.mu.Unlock()
}

func (p *pipe) Close() error                     { p.shut(net.ErrClosed); return nil }
func (p *pipe) LocalAddr() net.Addr              { return pipeAddr{} }
func (p *pipe) RemoteAddr() net.Addr             { return pipeAddr{} }
func (p *pipe) SetDeadline(time.Time) error      { return nil } // the handshake's deadline is its context's
func (p *pipe) SetReadDeadline(time.Time) error  { return nil }
func (p *pipe) SetWriteDeadline(time.Time) error { return nil }

type pipeAddr struct{}

func (pipeAddr) Network() string { return "tlsloop" }
func (pipeAddr) String() string  { return "tlsloop" }
