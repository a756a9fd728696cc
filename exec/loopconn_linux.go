package exec

import (
	"io"
	"math"
	"os"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/tressi/tressi/h1"
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
	partial bool  // part of the response arrived, not all
	rxAt    int64 // when the bytes last read reached the host
	job     ljob
	// deadline is the job's (or the dial's, while dialing: see dialEnd).
	deadline int64
	dialAt   int64  // when the dial began
	dialEnd  int64  // the connect timeout's instant, while dialing
	sent     int64  // when the job's first byte went out; -1 before
	out, in  int64  // the job's bytes each way
	pending  []byte // the job's bytes not yet written (or given to the transport)
	rbuf     []byte
	rlen     int
	codec    codec
	tr       transport // nil: plain socket
	mux      *h2mux    // an HTTP/2 connection's streams; nil: one job at a time
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
}

// dial opens a non-blocking connection for j.
func (l *evloop) dial(t *ltarget, j ljob) {
	if l.ex.aborted.Load() {
		l.finishJob(j, -1, 0, 0, 0, &dialError{errAborted})
		return
	}
	c, err := l.openConn(t)
	if err != nil {
		l.finishJob(j, -1, 0, 0, 0, &dialError{err})
		return
	}
	if j.own {
		c.owner = j.sess
		l.sessions[j.sess].conns[t.idx] = c
	}
	c.job = j
	c.deadline = j.ready + int64(j.pr.timeout)
	l.prepare(c)
}

// openConn starts a non-blocking connect to t: a connection dialing, with
// no job yet (dial gives it one; a warm-up dial never does, see warm).
func (l *evloop) openConn(t *ltarget) (*lconn, error) {
	fd, err := t.socket(l.rx.on)
	if err != nil {
		return nil, err
	}
	c := l.newConn(fd, t)
	if t.transport != nil {
		id := c.id
		tr, err := t.transport(func() { l.p.wake(id) })
		if err != nil {
			l.releaseConn(c)
			return nil, err
		}
		c.tr = tr
	}
	if err := l.p.add(fd, c.id, true); err != nil {
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
	c.dialAt = l.ex.clock.now()
	c.dialEnd = c.dialAt + t.connect
	c.deadline = math.MaxInt64
	l.busy++
	l.armScan()
	return c, nil
}

func (l *evloop) newConn(fd int, t *ltarget) *lconn {
	var c *lconn
	if n := len(l.free); n > 0 {
		c = l.conns[l.free[n-1]]
		l.free = l.free[:n-1]
	} else {
		c = &lconn{id: int32(len(l.conns)), rbuf: make([]byte, readBuf)}
		c.codec = newH1Codec(l, c)
		l.conns = append(l.conns, c)
	}
	c.fd, c.t, c.rlen, c.wantOut, c.tr, c.owner, c.reused, c.served, c.connect, c.mux = fd, t, 0, false, nil, -1, false, false, 0, nil
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
	l.ex.protos[c.t.idx].http1.Add(1)
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
// its handshake, plaintext it decrypted outside the loop.
func (l *evloop) pump(c *lconn) {
	if c.tr == nil {
		return
	}
	if !l.flushTransport(c) {
		return
	}
	switch c.state {
	case connHandshaking:
		if err := c.tr.Err(); err != nil {
			l.fail(c, &dialError{asTLSError(err)})
			return
		}
		if c.tr.Ready() {
			l.handshaking--
			c.state = connBusy
			c.connect = max(l.ex.clock.now()-c.dialAt, 1)
			switch {
			case c.t.proto != protoHTTP1 && alpn(c.tr) == "h2":
				l.startMux(c)
			case c.t.proto == protoH2:
				l.fail(c, errNoH2)
			default:
				l.ex.protos[c.t.idx].http1.Add(1)
				l.start(c)
			}
		}
	case connBusy:
		l.plaintext(c)
	}
}

// begin starts j on the idle connection c.
func (l *evloop) begin(c *lconn, j ljob) {
	c.state = connBusy
	c.reused = c.served
	c.job = j
	c.deadline = j.ready + int64(j.pr.timeout)
	l.busy++
	l.armScan()
	l.prepare(c)
	l.write(c)
}

// prepare readies c's request bytes and its codec for its job.
func (l *evloop) prepare(c *lconn) {
	c.pending = c.codec.begin(l, c)
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
		c.sent = l.ex.clock.now()
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
	for len(c.pending) > 0 {
		n, errno := rawWrite(c.fd, c.pending)
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
				if err := l.p.remove(c.fd); err != nil {
					l.fail(c, &dialError{err})
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
	used, done, err := c.codec.decode(c.rbuf[:c.rlen])
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

// eof handles the peer's close of a busy connection.
func (l *evloop) eof(c *lconn) {
	if c.mux != nil {
		l.failMux(c, nil)
		return
	}
	if c.state != connBusy {
		l.fail(c, io.ErrUnexpectedEOF)
		return
	}
	done, err := c.codec.eof()
	if err != nil {
		l.fail(c, err)
		return
	}
	if done {
		l.complete(c, l.ex.clock.now()) // the close itself carries no stamp
	}
}

// complete records c's response, finished at done, and frees c for the
// next job.
func (l *evloop) complete(c *lconn, done int64) {
	l.whole(c)
	j := c.job
	resp := c.codec.response()
	// Bytes beyond the response (we never pipeline) mean the server and the
	// framing disagree, and a server that answered before reading the
	// whole request (a 413, say) has the rest of it still coming: either
	// way the connection cannot be trusted with another request.
	keepConn := resp.keepAlive && c.rlen == 0 && c.pending == nil
	l.recordAnswer(&j, c.sent, done, c.out, c.in, c.connect, resp) // before c takes another job
	c.connect = 0
	c.served = true
	l.busy--
	switch {
	case !keepConn || l.ex.aborted.Load():
		l.closeConn(c)
		l.refill(c.t)
	case c.owner >= 0:
		c.state = connIdle // the session's, until its next request or its end
	default:
		l.reuse(c)
	}
	l.jobDone(&j, done, true)
}

// jobDone hands what follows a finished job to its driver.
func (l *evloop) jobDone(j *ljob, done int64, answered bool) {
	switch {
	case j.ws:
		l.ws.httpJobDone(j, done, answered)
	case j.st != nil:
		l.sessionDone(j, done, answered)
	case j.user >= 0:
		l.userDone(j.user, done, answered)
	}
}

// reuse hands the idle connection c to the next queued job of its target,
// or parks it.
func (l *evloop) reuse(c *lconn) {
	c.state = connIdle
	t := c.t
	if t.queue.len() > 0 {
		j := t.queue.pop()
		l.queued--
		if j.own {
			// A session waiting for a connection of its own: c's place
			// in the cap becomes its.
			l.closeConn(c)
			l.dial(t, j)
			return
		}
		l.begin(c, j)
		return
	}
	t.idle = append(t.idle, c)
}

// fail records c's job as failed with err and closes c.
//
// One failure is not the job's: a connection that sat idle, which the
// server closed (a keep-alive timeout) as the request went out. When the
// connection ended before any byte of a response came back, the server
// never read the request (it closed an idle connection), and the job goes
// out once more, on a fresh connection, recorded once. Any other failure,
// or the same one again, is the job's row.
func (l *evloop) fail(c *lconn, err error) {
	if c.mux != nil {
		l.failMux(c, err)
		return
	}
	j, sent, out, in, connect := c.job, c.sent, c.out, c.in, c.connect
	c.connect = 0
	if j.pr == nil {
		// A warm-up dial that failed: nobody's request. The first
		// request that needs the connection dials again, and records
		// what happens then.
		l.busy--
		l.closeConn(c)
		l.refill(c.t)
		return
	}
	dialing := c.state == connDialing || c.state == connHandshaking
	retry := c.reused && c.state == connBusy && in == 0 && !j.retry && closedByPeer(err) && !l.ex.aborted.Load()
	l.busy--
	l.closeConn(c)
	if retry {
		j.retry = true
		j.ready = l.ex.clock.now()
		l.dial(c.t, j)
		return
	}
	if _, isTimeout := err.(timeoutError); dialing && !isTimeout {
		if _, ok := err.(*dialError); !ok {
			err = &dialError{err}
		}
	}
	l.finishJob(j, sent, out, in, connect, err)
}

// recordAnswer records j's response, finished at done: its row (with the
// connect time of the connection it opened, 0 otherwise), its sample when
// it is the first of its kind, and its session step's captures.
func (l *evloop) recordAnswer(j *ljob, sent, done, out, in, connect int64, resp *lresponse) {
	row := l.sink.outcome(j.pr, j.k, j.sched, sent, done, out, in, resp.status, nil)
	row.Connect = connect
	if resp.sampled && l.sink.wantSample(&row) {
		l.sink.putSample(&row, j.pr, resp.head, resp.body, resp.bodyLen)
	}
	l.sink.keep(row, done)
	switch {
	case j.ws:
		l.ws.httpAnswered(j, resp)
	case j.st != nil:
		l.sessionCapture(j, resp)
	}
}

// finishJob records a job that ended without a response; connect is the
// connect time of the connection it opened (0: none), which a failed row
// keeps as an answered one does.
func (l *evloop) finishJob(j ljob, sent, out, in, connect int64, err error) {
	done := l.ex.clock.now()
	row := l.sink.outcome(j.pr, j.k, j.sched, sent, done, out, in, 0, err)
	row.Connect = connect
	if l.sink.wantSample(&row) {
		l.sink.putSampleErr(&row, j.pr, nil, nil, 0, err)
	}
	l.sink.keep(row, done)
	l.refill(l.targets[j.pr.spec.Target])
	l.jobDone(&j, done, false)
}

// refill dials for queued jobs while a closed connection left room. Dials
// that fail at once come back here: the flag keeps that a loop, not a
// recursion.
func (l *evloop) refill(t *ltarget) {
	if l.refilling {
		return
	}
	l.refilling = true
	for t.queue.len() > 0 && t.open < t.maxConns && !l.ex.aborted.Load() {
		q := t.queue.pop()
		l.queued--
		l.dial(t, q)
	}
	l.refilling = false
}

// closeConn closes c; a connection that was idle leaves its target's idle
// list.
func (l *evloop) closeConn(c *lconn) {
	if c.fd < 0 {
		return
	}
	t := c.t
	if c.mux != nil {
		if c.mux.conn.Active() > 0 {
			c.mux.conn.Fail(errAborted) // only at the very end: every stream ended before
		}
		l.muxes--
	}
	if c.owner >= 0 {
		l.sessions[c.owner].conns[t.idx] = nil
		c.owner = -1
	} else if c.mux != nil {
		t.dropMux(c)
	} else if c.state == connIdle {
		for i, x := range t.idle {
			if x == c {
				t.idle = append(t.idle[:i], t.idle[i+1:]...)
				break
			}
		}
	}
	t.open--
	l.releaseConn(c)
}

// whole marks c as no longer holding part of a response.
func (l *evloop) whole(c *lconn) {
	if c.partial {
		c.partial = false
		l.partials--
	}
}

func (l *evloop) releaseConn(c *lconn) {
	l.whole(c)
	if c.state == connHandshaking {
		l.handshaking--
	}
	if c.tr != nil {
		c.tr.Close()
		c.tr = nil
	}
	closeFD(c.fd) // also leaves the epoll set
	if c.wantOut {
		c.wantOut = false
		l.outs--
	}
	c.fd = -1
	c.state = connIdle
	c.pending = nil
	l.closed = append(l.closed, c.id)
}

// setOut switches EPOLLOUT interest on or off. The set refusing a change
// for a socket it holds is a broken connection: it fails.
func (l *evloop) setOut(c *lconn, out bool) {
	if out == c.wantOut {
		return
	}
	if err := l.p.modify(c.fd, c.id, out); err != nil {
		l.fail(c, err)
		return
	}
	if out {
		l.outs++
	} else {
		l.outs--
	}
	c.wantOut = out
}

// recv reads from c into b and sets c.rxAt: the kernel's receive stamp of
// the last bytes read when the loop keeps stamps, else the clock now.
func (l *evloop) recv(c *lconn, b []byte) (int, syscall.Errno) {
	n, at, errno := l.rx.read(c.fd, b)
	if errno != 0 || n == 0 {
		return n, errno
	}
	c.rxAt = l.ex.clock.now()
	if at >= 0 && at < c.rxAt && (c.sent < 0 || at >= c.sent) {
		c.rxAt = at
	}
	return n, 0
}
