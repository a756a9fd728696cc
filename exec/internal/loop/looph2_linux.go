package loop

import (
	"errors"
	"github.com/tressi/tressi/exec/internal/check"
	"math"
	"os"
	"strconv"

	"github.com/tressi/tressi/exec/internal/session"
	"github.com/tressi/tressi/exec/internal/sys"
	"github.com/tressi/tressi/grpc"
	"github.com/tressi/tressi/h2"
	"golang.org/x/sys/unix"
)

// h2mux is an HTTP/2 connection of the loop: one h2.Conn carrying many
// jobs at once, one per stream. The loop moves the connection's bytes as
// for any other (through its transport, if it has one); the mux starts
// streams, keeps each stream's job, and records each as its stream ends,
// from inside h2.Conn.Feed (it is the Conn's Handler).
//
// A mux connection stays connBusy for its whole life: its lconn's job,
// deadline and byte counts are unused, each stream's job has its own.
type h2mux struct {
	l      *evloop
	c      *lconn
	conn   *h2.Conn
	jobs   []h2job // by stream Tag
	free   []int32
	req    h2.Request
	scheme []byte
	memo   sampleMemo
	dirty  bool // in the loop's dirtyMuxes: frames wait to be written
	goAway bool // its GOAWAY was looked at (sawGoAway)
}

// h2job is one job riding a stream.
type h2job struct {
	ljob
	s        *h2.Stream
	sent     int64
	deadline int64
	connect  int64  // the connection's connect time, for the stream that opened it
	keep     int    // how much of the body to keep (sample, captures)
	wbuf     []byte // a rendered request with holes: the stream sends from it
	cbuf     []byte // the request with its cookies added (cookies_linux.go)
	resp     lresponse
	keepHead bool // the response's fields go to resp.Head (a sample, a capture)
	// call follows a gRPC call's answer (see grpcStream); nil until the
	// slot first carries one, then reused.
	call   *grpc.Call
	isGRPC bool
	// stream: the job is a session's streaming call, which stays open
	// across the session's steps (grpcstream_linux.go); reply hands its
	// replies over, made once per slot.
	stream bool
	reply  func([]byte, bool)
	check  check.Matcher // the request's checks on the stream's answer
}

// startMux turns the connected c into an HTTP/2 connection: its first job
// becomes its first stream, then it takes what its target's queue holds.
func (l *evloop) startMux(c *lconn) {
	m := &h2mux{l: l, c: c, scheme: []byte("http")}
	if c.tr != nil {
		m.scheme = []byte("https")
	}
	m.conn = h2.NewConn(m, h2.Config{MaxStreams: uint32(c.t.maxStreams)})
	if c.t.streamLimit > 0 {
		m.conn.Limit(c.t.streamLimit)
	}
	l.ex.Protos[c.t.idx].H2.Add(1)
	c.mux = m
	l.muxes++
	c.deadline = math.MaxInt64 // each stream has its own
	c.pending = nil            // the HTTP/1.1 bytes prepared at the dial
	if c.owner < 0 {
		c.t.muxes = append(c.t.muxes, c)
	}
	j := c.job
	l.busy-- // the dial's job now counts as its stream
	if j.pr != nil {
		m.start(j)
	} else {
		c.connect = 0 // a warm-up dial: no request waited for it
	}
	l.muxFill(c)
	l.muxLater(c)
}

// muxStart starts j on c's next stream; its frames go out with the rest
// of this turn of the loop's (see muxLater).
func (l *evloop) muxStart(c *lconn, j ljob) {
	c.mux.start(j)
	l.muxLater(c)
}

// muxLater marks c as having frames to send: they go out together at the
// start of the loop's next wait (flushMuxes), so the streams a burst
// starts on one connection, and the WINDOW_UPDATEs and acks a read makes,
// cost one write, not one each.
func (l *evloop) muxLater(c *lconn) {
	if !c.mux.dirty {
		c.mux.dirty = true
		l.dirtyMuxes = append(l.dirtyMuxes, c)
	}
}

// flushMuxes writes what every marked HTTP/2 connection has for its socket.
func (l *evloop) flushMuxes() {
	for _, c := range l.dirtyMuxes {
		if m := c.mux; m != nil && m.dirty {
			m.dirty = false
			l.muxFlush(c)
		}
	}
	l.dirtyMuxes = l.dirtyMuxes[:0]
}

// start opens a stream for j.
func (m *h2mux) start(j ljob) {
	l := m.l
	idx := m.alloc()
	hj := &m.jobs[idx]
	hj.ljob = j
	hj.resp = lresponse{RawResponse: session.RawResponse{Head: hj.resp.Head[:0], Body: hj.resp.Body[:0]}, reqPath: hj.resp.reqPath[:0]}
	hj.keep, hj.keepHead, hj.isGRPC = 0, false, false
	hj.check.Start(j.pr.Checks)
	l.busy++
	hj.sent = l.ex.Clock.Now()
	hj.connect, m.c.connect = m.c.connect, 0
	hj.deadline = j.ready + int64(j.pr.Timeout)
	l.armConn(m.c, hj.deadline)
	req := j.pr.H2 // a static request, converted and encoded once
	if j.redir != nil {
		req = nil // a redirect's next hop (redirect_linux.go)
	}
	if req == nil || l.cookieStore(&j) != nil {
		wire := j.pr.Wire
		if j.redir != nil {
			wire = j.redir.wire
		} else if wire == nil {
			hj.wbuf = l.render(hj.wbuf[:0], &j)
			wire = hj.wbuf
		}
		// Cookies added make it longer: then it converts as one with holes.
		if withCookies := l.withCookies(&j, wire, &hj.cbuf, &hj.resp); req == nil || len(withCookies) != len(wire) {
			if err := h2.FromHTTP1(withCookies, m.scheme, &m.req); err != nil {
				m.release(idx)
				l.busy--
				l.finishJob(j, -1, 0, 0, hj.connect, err)
				return
			}
			req = &m.req
		}
	}
	start := m.conn.Start
	if j.isCallOpen() && j.st.Call.ClientStreams {
		start = m.conn.Open // its messages follow in later steps
	}
	s, err := start(req, int64(idx))
	if err != nil {
		m.release(idx)
		l.busy--
		l.finishJob(j, -1, 0, 0, hj.connect, err)
		return
	}
	hj.s = s
	l.streams++
	if j.isCallOpen() {
		l.callBound(m.c, idx, &j)
	}
}

func (m *h2mux) alloc() int32 {
	if n := len(m.free); n > 0 {
		idx := m.free[n-1]
		m.free = m.free[:n-1]
		return idx
	}
	m.jobs = append(m.jobs, h2job{})
	return int32(len(m.jobs) - 1)
}

func (m *h2mux) release(idx int32) {
	hj := &m.jobs[idx]
	hj.s, hj.st, hj.pr = nil, nil, nil
	m.free = append(m.free, idx)
}

// ready says c can take another stream now.
func (m *h2mux) ready() bool { return m.conn.Ready() }

// Response is the h2.Handler's: a stream's status arrived, and (as for
// HTTP/1.1, see sampleMemo.keep) how much of the response to keep is
// decided: the fields go to Field only when they are kept.
func (m *h2mux) Response(s *h2.Stream, status int) bool {
	hj := &m.jobs[s.Tag]
	hj.resp.status = status
	keep, keepHead, sampled := m.memo.keep(m.l, &hj.ljob, status)
	hj.keep, hj.resp.sampled, hj.keepHead = keep, sampled, keepHead
	if hj.isGRPC = hj.pr.Spec.GRPC != nil; hj.isGRPC {
		hj.grpcStart(status)
		if hj.stream {
			if hj.reply == nil {
				hj.reply = m.replyHook(int32(s.Tag))
			}
			hj.call.Each = hj.reply
		}
	}
	if keepHead {
		// The head as a sample and headerValue read it: a status line,
		// then one "name: value" line per field.
		h := append(hj.resp.Head[:0], "HTTP/2 "...)
		h = strconv.AppendInt(h, int64(status), 10)
		hj.resp.Head = append(h, "\r\n"...)
	}
	return keepHead || hj.isGRPC // a call's code is in its trailers
}

// Field is the h2.Handler's: one response header or trailer field.
func (m *h2mux) Field(s *h2.Stream, name, value string) {
	hj := &m.jobs[s.Tag]
	if hj.isGRPC {
		hj.call.Field(name, value)
	}
	hj.check.FieldString(name, value)
	if hj.keepHead {
		hj.resp.Head = append(append(append(append(hj.resp.Head, name...), ": "...), value...), "\r\n"...)
	}
}

// Data is the h2.Handler's: a piece of the body; only the kept prefix of
// it stays.
func (m *h2mux) Data(s *h2.Stream, p []byte) {
	hj := &m.jobs[s.Tag]
	if hj.isGRPC {
		hj.call.Data(p)
	}
	hj.check.Body(p)
	hj.resp.bodyLen += int64(len(p))
	if room := hj.keep - len(hj.resp.Body); room > 0 {
		hj.resp.Body = append(hj.resp.Body, p[:min(room, len(p))]...)
	}
}

// Closed is the h2.Handler's: a stream ended, answered (err nil) or not.
func (m *h2mux) Closed(s *h2.Stream, err error) {
	done := m.c.rxAt // an answer ended with the bytes last read
	if err != nil || done < m.jobs[s.Tag].sent {
		// A stamp older than the stream's send cannot date its answer
		// (the connection's reads serve every stream; HTTP/1.1's recv
		// checks its one request): the clock bounds it instead.
		done = m.l.ex.Clock.Now()
	}
	m.l.muxDone(m, int32(s.Tag), s.Out, s.In, done, err)
}

// muxDone records the job of stream idx, which ended at done.
// As for HTTP/1.1: an answer through recordAnswer, a failure through
// finishJob. The stream's slot is free before the job's end can start
// another.
func (l *evloop) muxDone(m *h2mux, idx int32, out, in, done int64, err error) {
	hj := &m.jobs[idx]
	if hj.stream {
		l.callEnded(m, idx, done, err)
		return
	}
	j, sent := hj.ljob, hj.sent
	l.busy--
	l.streams--
	if m.c.owner < 0 {
		m.c.t.recent = m.c
	}
	if err != nil {
		m.release(idx)
		l.finishJob(j, sent, out, in, hj.connect, err)
		return
	}
	sent, out, in, connect := j.totals(sent, out, in, hj.connect) // with a redirect's earlier hops
	if hj.isGRPC {
		hj.resp.status = int(hj.call.End()) // the row's status is the call's code
	}
	if l.redirect(&j, &hj.resp, sent, out, in, connect) {
		m.release(idx)
		l.dispatch(j)
		return
	}
	hj.resp.check = &hj.check // here: m.jobs may have moved since the stream started
	l.recordAnswer(&j, sent, done, out, in, connect, &hj.resp)
	l.latency += (done - sent - l.latency) / 16 // the streams' mean, for napFor
	m.release(idx)
	l.jobDone(&j, done, true)
}

// muxDecode feeds c's buffered plaintext to its HTTP/2 connection, whose
// ended streams are recorded meanwhile; false when c failed.
func (l *evloop) muxDecode(c *lconn, full bool) bool {
	m := c.mux
	err := m.conn.Feed(c.rbuf[:c.rlen])
	c.rlen = 0 // the Conn keeps what it could not use yet
	if err != nil {
		l.failMux(c, err)
		return false
	}
	if full && len(c.rbuf) < maxReadBuf {
		c.rbuf = make([]byte, min(2*len(c.rbuf), maxReadBuf)) // fewer, larger reads
	}
	if partial := m.conn.Partial(); partial != c.partial {
		c.partial = partial
		if partial {
			l.partials++
		} else {
			l.partials--
		}
	}
	if !m.goAway && m.conn.GoingAway() {
		m.goAway = true
		c.t.sawGoAway(m.conn.ProcessedBeforeGoAway(), m.conn.Started())
	}
	l.muxFill(c)
	l.muxLater(c)
	return !l.muxRetire(c)
}

// muxRetire closes c when no stream will start on it again (GOAWAY, or
// its stream limit) and none is left to finish; false while c stays.
func (l *evloop) muxRetire(c *lconn) bool {
	if c.fd >= 0 && c.mux.conn.Retired() && c.mux.conn.Active() == 0 {
		l.closeConn(c)
		l.refill(c.t)
	}
	return c.fd < 0
}

// sawGoAway learns from a server that went away without an error after
// processing n of the started streams on a connection. When it left some
// unprocessed, and a second connection ends so after the same n, the
// server ends every connection so (nginx's keepalive_requests, 1000 by
// default): from then on t's connections start at most n streams each,
// and the next ones go out on a fresh connection, so none is lost to the
// next GOAWAY. A server going away for other reasons (a restart, a
// connection's age) does so after differing counts and teaches nothing;
// one closing idle connections (nginx's keepalive_timeout) leaves no
// stream unprocessed, and is not looked at.
func (t *ltarget) sawGoAway(n, started int) {
	if n == 0 || n >= started || n == t.streamLimit {
		return
	}
	if n != t.goAwayAfter {
		t.goAwayAfter = n
		return
	}
	t.streamLimit = n
	for _, c := range t.muxes {
		c.mux.conn.Limit(n)
	}
}

// muxFill starts the jobs waiting in c's target's queue while c takes
// streams (never on a session's own connection: the queue is the pool's).
func (l *evloop) muxFill(c *lconn) {
	t := c.t
	for c.owner < 0 && c.fd >= 0 && t.queue.Len() > 0 && c.mux.ready() {
		if t.queue.Peek().own {
			return
		}
		c.mux.start(l.dequeue(t))
	}
}

// muxFlush writes what c's HTTP/2 connection has for the socket.
func (l *evloop) muxFlush(c *lconn) {
	if c.fd < 0 {
		return
	}
	m := c.mux
	out := m.conn.Output()
	if len(out) == 0 {
		return
	}
	if c.tr != nil {
		n, err := c.tr.Write(out)
		m.conn.Wrote(n)
		if err != nil {
			l.failMux(c, err)
			return
		}
		l.flushTransport(c)
		return
	}
	for len(out) > 0 {
		n, errno := sys.RawWrite(c.fd, out)
		switch errno {
		case 0:
			m.conn.Wrote(n)
			out = m.conn.Output()
		case unix.EINTR:
		case unix.EAGAIN:
			l.setOut(c, true)
			return
		default:
			l.failMux(c, os.NewSyscallError("write", errno))
			return
		}
	}
	l.setOut(c, false)
}

// readyMux is the target's HTTP/2 connection with the fewest streams that
// can take one more, nil when none can.
//
// The connection a stream just ended on comes first: a closed-model user's
// next request then rides the connection its last one did, so a
// connection's streams stay together, and what a read of its responses
// starts goes out in one write (as h2load's clients keep theirs), not
// scattered one stream per connection.
func (t *ltarget) readyMux() *lconn {
	if c := t.recent; c != nil && c.mux.ready() {
		return c
	}
	var best *lconn
	for _, c := range t.muxes {
		if c.mux.ready() && (best == nil || c.mux.conn.Active() < best.mux.conn.Active()) {
			best = c
		}
	}
	return best
}

// failMux ends every stream c carries, each with err (nil: as the peer's
// close left them: h2.ErrConnClosed, or the GOAWAY's error), then c.
// The streams end first, so the jobs their ends start cannot pick c.
func (l *evloop) failMux(c *lconn, err error) {
	if err == nil {
		c.mux.conn.Close()
	} else {
		c.mux.conn.Fail(err)
	}
	if c.fd >= 0 {
		l.closeConn(c)
	}
	l.refill(c.t)
}

// dropMux forgets c as one of its target's HTTP/2 connections.
func (t *ltarget) dropMux(c *lconn) {
	if t.recent == c {
		t.recent = nil
	}
	for i, x := range t.muxes {
		if x == c {
			t.muxes = append(t.muxes[:i], t.muxes[i+1:]...)
			return
		}
	}
}

// muxTimeout ends the streams of c that outlived their timeout: each is
// cancelled (RST_STREAM) and recorded as a timeout. It returns the
// earliest deadline of the streams left (math.MaxInt64 for none).
func (l *evloop) muxTimeout(c *lconn, now int64) int64 {
	m := c.mux
	next, ended := int64(math.MaxInt64), false
	for i := range m.jobs {
		hj := &m.jobs[i]
		if hj.s == nil {
			continue
		}
		if hj.stream {
			next = min(next, l.callTimeout(hj, now))
			continue
		}
		if now < hj.deadline {
			next = min(next, hj.deadline)
			continue
		}
		s := hj.s
		out, in := s.Out, s.In
		m.conn.Cancel(s)
		l.muxDone(m, int32(i), out, in, now, timeoutError{})
		ended = true
	}
	if ended {
		l.muxLater(c)
		l.muxRetire(c)
	}
	return next
}

// errNoH2 is a TLS connection whose server did not choose HTTP/2.
var errNoH2 = errors.New(`the server did not agree to HTTP/2 in the TLS handshake (ALPN): use protocol = "auto" to accept HTTP/1.1`)

// grpcStart readies the stream's call state for a gRPC call's answer.
func (hj *h2job) grpcStart(status int) {
	if hj.call == nil {
		hj.call = &grpc.Call{}
	}
	hj.call.Reset()
	hj.call.Status(status)
}
