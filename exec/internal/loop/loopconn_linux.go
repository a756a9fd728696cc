package loop

import (
	"io"
	"math"
	"os"
	"syscall"

	"github.com/tressi/tressi/exec/internal/run"
	"github.com/tressi/tressi/exec/internal/sys"
	"github.com/tressi/tressi/h1"
	"golang.org/x/sys/unix"
)

// A connection's states: idle in its target's pool, connecting, finishing
// its transport's handshake, carrying a job.
const (
	connIdle = iota
	connDialing
	connHandshaking
	connBusy
)

// lconn is one connection of a loop and the job it carries.
type lconn struct {
	id      int32
	fd      int
	t       *ltarget
	state   uint8
	wantOut bool  // EPOLLOUT is in the interest set
	ring    bool  // on the poller's ring, out of the epoll set (loopring_linux.go)
	partial bool  // part of the response arrived, not all
	rxAt    int64 // when the bytes last read reached the host
	job     ljob
	// deadline is the job's (or the dial's, while dialing: see dialEnd).
	deadline int64
	dialAt   int64 // when the dial began
	dialEnd  int64 // the connect timeout's instant, while dialing
	// timerAt is the instant of c's entry in the loop's timer heap, -1
	// for none (looptimers_linux.go); kept across the lives of c's id.
	timerAt int64
	sent    int64  // when the job's first byte went out; -1 before
	out, in int64  // the job's bytes each way
	pending []byte // the job's bytes not yet written (or given to the transport)
	rbuf    []byte
	rlen    int
	h1      *h1Codec      // HTTP/1.1 framing, while mux is nil
	tr      run.Transport // nil: plain socket
	mux     *h2mux        // an HTTP/2 connection's streams; nil: one job at a time
	// connect is how long opening the connection took (connect, and the
	// transport's handshake): the connect_ns of its first job's row.
	connect int64
	// owner is the session whose own connection this is
	// (connection = "session"), -1 for a pool connection.
	owner int32
	// reused: the job came to c after c sat idle following an earlier
	// response, so the server may have closed c meanwhile (see fail).
	// served: c carried a response. A warm-up connection begins its first
	// job unserved, like a fresh dial: a server that closes it then read
	// the request, as far as anyone can tell.
	reused, served bool
	// ended: the socket's end came while the transport's handshake ran,
	// and the socket left the poller (read).
	ended bool
}

// dial opens a non-blocking connection for j.
func (l *evloop) dial(t *ltarget, j ljob) {
	if l.ex.Aborted.Load() {
		l.finishJob(j, -1, 0, 0, 0, &run.DialError{Err: run.ErrAborted})
		return
	}
	c, err := l.openConn(t)
	if err != nil {
		l.finishJob(j, -1, 0, 0, 0, &run.DialError{Err: err})
		return
	}
	if j.own {
		c.owner = j.sess
		l.sessions[j.sess].conns[t.idx] = c
	}
	c.job = j
	c.deadline = j.ready + int64(j.pr.Timeout)
	l.armConn(c, c.deadline)
	l.prepare(c)
}

// openConn starts a non-blocking connect to t: a connection dialing, with
// no job yet (dial gives it one; a warm-up dial never does, see warm).
func (l *evloop) openConn(t *ltarget) (*lconn, error) {
	fd, err := t.socket(l.rx.On)
	if err != nil {
		return nil, err
	}
	c := l.newConn(fd, t)
	if t.transport != nil {
		id := c.id
		tr, err := t.transport(func() { l.p.Wake(id) })
		if err != nil {
			l.releaseConn(c)
			return nil, err
		}
		c.tr = tr
	}
	if err := l.p.Add(fd, c.id, true); err != nil {
		l.releaseConn(c)
		return nil, err
	}
	c.wantOut = true
	l.outs++
	t.open++
	c.state = connDialing
	c.job = ljob{}
	// The connect timeout counts from the dial, not from when the job
	// began waiting: a job that waited in the queue for a connection
	// (its timeout counts that wait) still gets the whole connect timeout
	// for the connection it opens.
	c.dialAt = l.ex.Clock.Now()
	c.dialEnd = c.dialAt + t.connect
	c.deadline = math.MaxInt64
	l.busy++
	l.armConn(c, c.dialEnd)
	return c, nil
}

func (l *evloop) newConn(fd int, t *ltarget) *lconn {
	var c *lconn
	if n := len(l.free); n > 0 {
		c = l.conns[l.free[n-1]]
		l.free = l.free[:n-1]
	} else {
		c = &lconn{id: int32(len(l.conns)), rbuf: make([]byte, readBuf), timerAt: -1}
		// Mapped now, in the warm-up for its connections: the kernel's
		// first copy into a fresh buffer faults its page in, and the
		// first responses of a 200-connection run took 167 such faults
		// inside the run's first 20 ms.
		sys.Prefault(c.rbuf[:0])
		c.h1 = newH1Codec(l, c)
		l.conns = append(l.conns, c)
	}
	c.fd, c.t, c.rlen, c.wantOut, c.tr, c.owner, c.reused, c.served, c.connect, c.mux = fd, t, 0, false, nil, -1, false, false, 0, nil
	c.ring, c.ended = false, false
	return c
}

// connected follows a finished connect: the transport's handshake, or the
// request.
func (l *evloop) connected(c *lconn) {
	if c.tr != nil && !c.tr.Ready() {
		c.state = connHandshaking
		l.handshaking++
		l.pump(c)
		return
	}
	c.connect = max(l.now-c.dialAt, 1)
	c.state = connBusy
	l.setOut(c, false)
	if c.t.proto == protoH2C {
		l.startMux(c)
		return
	}
	l.ex.Protos[c.t.idx].Http1.Add(1)
	l.start(c)
}

// start sends c's job now c is open, or parks c when it has none (a
// warm-up dial).
func (l *evloop) start(c *lconn) {
	if c.job.pr == nil {
		l.busy--
		c.connect = 0 // no request waited for it: meta.json's warmup says what it took
		l.reuse(c)
		return
	}
	l.write(c)
}

// pump moves what a transport has: its bytes for the socket, the end of
// its handshake, plaintext it decrypted outside the loop. Not while c
// connects: the handshake's goroutine wakes the loop with its first bytes
// at once, and sending them on a socket the kernel connected before the
// loop's wait said so would drop the EPOLLOUT interest the connect's end
// is waiting for (setOut), leaving c dialing until its timeout. connected
// pumps c once the connect is done.
func (l *evloop) pump(c *lconn) {
	if c.tr == nil || c.state == connDialing {
		return
	}
	if !l.flushTransport(c) {
		return
	}
	switch c.state {
	case connHandshaking:
		if err := c.tr.Err(); err != nil {
			l.fail(c, &run.DialError{Err: run.AsTLSError(err)})
			return
		}
		if c.tr.Ready() {
			l.handshaking--
			c.state = connBusy
			c.connect = max(l.ex.Clock.Now()-c.dialAt, 1)
			if c.ended {
				l.endedWithHandshake(c)
				return
			}
			switch {
			case c.t.proto != protoHTTP1 && alpn(c.tr) == "h2":
				l.startMux(c)
			case c.t.proto == protoH2:
				l.fail(c, errNoH2)
			default:
				l.ex.Protos[c.t.idx].Http1.Add(1)
				l.start(c)
			}
		}
	case connBusy:
		l.plaintext(c)
	}
}

// endedWithHandshake fails c, whose socket ended before its handshake's
// goroutine saw the handshake succeed: the server closed as its part
// ended (a TLS 1.3 server refusing the client's certificate, one that
// closes at once). No event comes for the socket any more, so c carries
// nothing; the row says what the server sent last, if anything.
func (l *evloop) endedWithHandshake(c *lconn) {
	_, err := c.tr.Read(c.rbuf[c.rlen:])
	if err == nil || err == io.EOF {
		err = io.ErrUnexpectedEOF
	}
	l.fail(c, err)
}

// begin starts j on the idle connection c.
func (l *evloop) begin(c *lconn, j ljob) {
	c.state = connBusy
	c.reused = c.served
	c.job = j
	c.deadline = j.ready + int64(j.pr.Timeout)
	l.busy++
	l.armConn(c, c.deadline)
	l.prepare(c)
	l.write(c)
}

// prepare readies c's request bytes and its codec for its job.
func (l *evloop) prepare(c *lconn) {
	c.pending = c.h1.begin(l, c)
	c.sent, c.out, c.in = -1, 0, 0
}

// write sends what is left of c's request, through its transport if it
// has one.
func (l *evloop) write(c *lconn) {
	if c.mux != nil {
		l.muxFlush(c)
		return
	}
	if c.sent < 0 {
		c.sent = l.ex.Clock.Now()
	}
	if c.tr != nil {
		if len(c.pending) > 0 {
			n, err := c.tr.Write(c.pending)
			c.out += int64(n)
			if err != nil {
				l.fail(c, err)
				return
			}
		}
		c.pending = nil
		l.flushTransport(c)
		return
	}
	if !c.ring && l.p.Ring() {
		l.toRing(c)
	}
	if c.ring {
		if len(c.pending) > 0 && c.fd >= 0 {
			l.ringSend(c)
		}
		return
	}
	for len(c.pending) > 0 {
		n, errno := sys.RawWrite(c.fd, c.pending)
		switch errno {
		case 0:
		case unix.EINTR:
			continue
		case unix.EAGAIN:
			l.setOut(c, true)
			return
		default:
			l.fail(c, os.NewSyscallError("write", errno))
			return
		}
		c.out += int64(n)
		c.pending = c.pending[n:]
	}
	c.pending = nil
	l.setOut(c, false)
}

// flushTransport writes what c's transport has for the socket; false when
// c failed.
func (l *evloop) flushTransport(c *lconn) bool {
	blocked, errno := sendPending(c.fd, c.tr)
	if errno != 0 {
		l.fail(c, os.NewSyscallError("write", errno))
		return false
	}
	l.setOut(c, blocked)
	return c.fd >= 0
}

// read reads what arrived on c and hands it to the codec, through the
// transport if c has one.
func (l *evloop) read(c *lconn) {
	for {
		buf := c.rbuf[c.rlen:]
		if c.tr != nil {
			if l.cipher == nil {
				l.cipher = make([]byte, maxReadBuf)
			}
			buf = l.cipher
		}
		n, errno := l.recv(c, buf)
		switch {
		case errno == unix.EAGAIN:
			return
		case errno == unix.EINTR:
			continue
		case errno != 0:
			l.fail(c, os.NewSyscallError("read", errno))
			return
		case n == 0:
			if c.tr != nil && c.state == connHandshaking {
				// The transport says why (an alert it was fed, most
				// likely) when it wakes the loop; until then the socket's
				// end must not wake the loop again and again.
				c.tr.EOF()
				c.ended = true
				if err := l.p.Remove(c.fd); err != nil {
					l.fail(c, &run.DialError{Err: err})
				}
				return
			}
			if c.tr != nil && c.state == connBusy && !l.plaintext(c) {
				return
			}
			l.eof(c)
			return
		}
		if c.tr == nil {
			c.in += int64(n) // through a transport, the plaintext counts
		}
		full := n == len(buf)
		if c.tr != nil {
			if err := c.tr.Feed(buf[:n]); err != nil {
				l.fail(c, err)
				return
			}
			if c.state != connBusy || !l.plaintext(c) {
				return // a handshake's bytes: pump takes it from here
			}
		} else {
			c.rlen += n
			if !l.decode(c, full) {
				return
			}
		}
		if !full {
			return // level-triggered: epoll says when there is more
		}
	}
}

// plaintext hands what c's transport decrypted to the codec; false when
// that ended the exchange (or failed it).
func (l *evloop) plaintext(c *lconn) bool {
	for {
		n, err := c.tr.Read(c.rbuf[c.rlen:])
		if err == io.EOF && n == 0 {
			// The server's close_notify: the end of a body that runs to
			// the connection's close, or of a connection it gave up.
			l.eof(c)
			return false
		}
		if err != nil && err != io.EOF {
			l.fail(c, err)
			return false
		}
		if n == 0 {
			return true
		}
		c.in += int64(n)
		c.rlen += n
		if !l.decode(c, c.rlen == len(c.rbuf)) {
			return false
		}
	}
}

// decode feeds c's buffered bytes to its codec; false when that ended the
// exchange (or failed it). full: the last read filled the buffer, so it
// grows.
func (l *evloop) decode(c *lconn, full bool) bool {
	if c.mux != nil {
		return l.muxDecode(c, full)
	}
	used, done, err := c.h1.decode(c.rbuf[:c.rlen])
	if err != nil {
		l.fail(c, err)
		return false
	}
	if used > 0 {
		c.rlen = copy(c.rbuf, c.rbuf[used:c.rlen])
	}
	if done {
		l.complete(c, c.rxAt)
		return false
	}
	if !c.partial {
		c.partial = true
		l.partials++
	}
	if c.rlen == len(c.rbuf) && len(c.rbuf) >= maxReadBuf {
		l.fail(c, h1.ErrProtocol) // unreachable: the parser refuses heads over h1.MaxHead
		return false
	}
	if full && len(c.rbuf) < maxReadBuf {
		// A head larger than the buffer, or a large body: fewer, larger
		// reads from now on.
		grown := make([]byte, min(2*len(c.rbuf), maxReadBuf))
		copy(grown, c.rbuf[:c.rlen])
		c.rbuf = grown
	}
	return true
}

// sendPending writes what tr holds for socket fd until it holds nothing
// (blocked false) or the socket takes no more now (blocked true: wait for
// EPOLLOUT). A non-zero errno is the socket failing.
func sendPending(fd int, tr run.Transport) (blocked bool, errno syscall.Errno) {
	for {
		b := tr.Pending()
		if len(b) == 0 {
			return false, 0
		}
		n, errno := sys.RawSend(fd, b)
		switch errno {
		case 0:
			tr.Sent(n)
		case unix.EINTR:
		case unix.EAGAIN:
			return true, 0
		default:
			return false, errno
		}
	}
}
