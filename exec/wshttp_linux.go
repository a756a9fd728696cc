package exec

import (
	"github.com/tressi/tressi/h1"
	"github.com/tressi/tressi/results"
)

// HTTP steps before a WebSocket session's connect: log in over HTTP,
// capture a token, send it in the connect's headers. They run on the
// WebSocket loop, in order, each request on a connection of its own to its
// step's target (plain or TLS, through the same dial and transport as the
// WebSocket connection), closed once its response is read; then the
// session dials its WebSocket connection. Each request is one row, as in
// an HTTP scenario: latency from when the step became ready (the previous
// response plus think), its captures taken from a 2xx/3xx response, and a
// request missing a captured value is capture_failed. A connect whose
// headers or path need a value no step captured is capture_failed too, and
// the session's other rows ws_closed.

// wsHTTPExchange is a session's HTTP exchange in progress; kept with the
// session (its buffers reused by the next session in that place).
type wsHTTPExchange struct {
	p           h1.Parser
	head        []byte // the response head, for captures and the sample
	buf         []byte // bytes read and not parsed yet
	sched, sent int64
	deadline    int64
	out, in     int64
}

// httpStep is the HTTP step the session's cursor is on.
func (s *wsSession) httpStep() *wsStep { return &s.prog.steps[s.i] }

// httpNext runs the session's HTTP steps from its cursor: the next request
// once its step is ready, capture_failed rows for requests missing a
// value, and after the last the WebSocket connection.
func (l *wsLoop) httpNext(s *wsSession) {
	for s.i < s.prog.connect {
		st := s.httpStep()
		if s.j >= st.repeat {
			s.i, s.j = s.i+1, 0
			continue
		}
		if l.stopSending(s) {
			l.restRows(s, results.NotSent)
			l.endSession(s)
			return
		}
		if s.ready > l.now {
			s.state, s.wakeAt = wsHTTPWait, s.ready
			l.setTimer(s, s.ready)
			return
		}
		if !s.hasAll(st.needs) {
			l.keep(s, wsRow(s.k, st.ep, s.ready, -1, -1, 0, results.CaptureFailed, 0, 0), st)
			s.j++
			continue
		}
		if s.http == nil {
			s.http = &wsHTTPExchange{}
			x := s.http
			x.p.Head = func(status int, head []byte) int {
				x.head = append(x.head[:0], head...)
				return captureBodyLimit
			}
		}
		x := s.http
		x.sched, x.sent, x.out, x.in = s.ready, -1, 0, 0
		x.deadline = l.now + int64(st.req.timeout)
		s.httpConn = true
		switch err := l.dial(s, l.targets[st.req.spec.Target]); {
		case err == errNoRoom:
			l.httpFailure(s, results.LocalResources, nil)
		case err != nil:
			l.httpFailure(s, classify(err), err)
		default:
			return // the request goes out once the connection opens
		}
		// It failed at once: on to the next, in this loop (a run of
		// failures does not recurse).
	}
	// The HTTP steps are done: the WebSocket connection, scheduled from
	// when the connect became ready.
	if l.stopSending(s) {
		l.restRows(s, results.NotSent)
		l.endSession(s)
		return
	}
	s.state, s.wakeAt = wsDialing, -1
	s.connSched = s.ready
	if st := s.prog.connectStep(); !s.hasAll(st.needs) {
		l.connectFailed(s, st, results.CaptureFailed)
		return
	}
	l.dialWS(s)
}

// hasAll reports whether every capture slot in needs holds a value.
func (s *wsSession) hasAll(needs []int) bool {
	for _, n := range needs {
		if n >= len(s.have) || !s.have[n] {
			return false
		}
	}
	return true
}

// opened follows a connection that opened (and finished its TLS
// handshake): an HTTP step's request, or the WebSocket upgrade.
func (l *wsLoop) opened(s *wsSession) {
	if s.httpConn {
		l.httpSend(s)
		return
	}
	l.upgrade(s)
}

// httpSend writes the HTTP step's request on the connection just opened.
func (l *wsLoop) httpSend(s *wsSession) {
	st, x := s.httpStep(), s.http
	s.state = wsHTTPBusy
	l.setOut(s, false)
	l.enc.vals.Slot, l.enc.vals.Row, l.enc.vals.Captured = s.k, l.ex.s.Row(s.prog.entry, s.k), s.captured
	l.frame = l.enc.render(l.frame[:0], st.req)
	x.p.Reset(st.req.spec.Method == "HEAD", int64(l.ex.maxBody))
	x.head, x.buf = x.head[:0], x.buf[:0]
	x.sent, x.out = l.ex.clock.now(), int64(len(l.frame))
	l.write(s, l.frame)
	if s.state == wsHTTPBusy {
		l.setTimer(s, x.deadline)
	}
}

// httpReceived feeds the response's bytes to the parser.
func (l *wsLoop) httpReceived(s *wsSession, b []byte) bool {
	x := s.http
	x.in += int64(len(b))
	x.buf = append(x.buf, b...)
	used, done, err := x.p.Feed(x.buf)
	if err != nil {
		l.httpFailed(s, results.Protocol, err)
		return false
	}
	x.buf = x.buf[:copy(x.buf, x.buf[used:])]
	if done {
		l.httpDone(s, max(l.rx, x.sent))
		return false
	}
	return true
}

// httpEnded: the connection of an HTTP exchange ended (EOF, reset, the
// run's abort). A body that runs to the close is complete; anything else
// fails the request with kind.
func (l *wsLoop) httpEnded(s *wsSession, kind results.ErrorKind) {
	if kind != results.Interrupted && !l.ex.aborted.Load() {
		if _, err := s.http.p.EOF(); err == nil {
			s.http.p.Close = true
			l.httpDone(s, l.ex.clock.now())
			return
		}
	}
	l.httpFailed(s, kind, nil)
}

// httpDone records the HTTP step's response, completed at done, takes its
// captures, closes its connection and goes on.
func (l *wsLoop) httpDone(s *wsSession, done int64) {
	st, x := s.httpStep(), s.http
	status := x.p.Status
	row := l.sink.outcome(st.req, s.k, x.sched, x.sent, done, x.out, x.in, status, nil)
	row.Connect = s.connect
	if l.sink.wantSample(&row) {
		l.sink.putSample(&row, st.req, x.head, x.p.Body, x.p.BodyLen)
	}
	l.sink.keep(row, done)
	ok := status >= 200 && status <= 399
	if !results.ExpectsStatus(st.req.spec.Expect, status) {
		s.failed = true
	}
	raw := rawResponse{head: x.head, body: x.p.Body}
	for i := range st.httpCapture {
		c := &st.httpCapture[i]
		if !ok {
			s.have[c.index] = false
			continue
		}
		s.captured[c.index], s.have[c.index] = c.extract(s.captured[c.index][:0], &raw)
	}
	l.httpClose(s)
	s.j++
	s.ready = done + st.think
	l.now = l.ex.clock.now()
	l.httpNext(s)
}

// httpFailed records the HTTP step's request as failed with kind (err, when
// known, says why in its sample), closes its connection and goes on: its
// captures are missing, and the next step is ready now.
func (l *wsLoop) httpFailed(s *wsSession, kind results.ErrorKind, err error) {
	l.httpFailure(s, kind, err)
	l.httpNext(s)
}

// httpFailure is httpFailed without going on.
func (l *wsLoop) httpFailure(s *wsSession, kind results.ErrorKind, err error) {
	st, x := s.httpStep(), s.http
	now := l.ex.clock.now()
	var row results.Row
	if err != nil {
		row = l.sink.outcome(st.req, s.k, x.sched, x.sent, now, x.out, x.in, 0, err)
	} else {
		if l.ex.aborted.Load() {
			kind = results.Interrupted
		}
		row = wsRow(s.k, st.ep, x.sched, x.sent, -1, 0, kind, x.out, x.in)
		if x.sent >= 0 {
			l.sink.stats.sent.Add(1)
		}
		l.sink.stats.done.Add(1)
		l.sink.stats.failed.Add(1)
	}
	if row.Error != results.Interrupted && l.sink.wantSample(&row) {
		l.sink.putSampleErr(&row, st.req, nil, nil, 0, err)
	}
	l.sink.keep(row, now)
	s.failed = true
	for i := range st.httpCapture {
		s.have[st.httpCapture[i].index] = false
	}
	l.httpClose(s)
	s.j++
	s.ready, l.now = now, now
}

// httpClose closes an HTTP step's connection, if open.
func (l *wsLoop) httpClose(s *wsSession) {
	if s.fd >= 0 {
		if s.state == wsHandshaking {
			l.handshaking--
		}
		if s.wantOut {
			s.wantOut = false
			l.outs--
		}
		l.dropTransport(s)
		closeFD(s.fd)
		s.fd = -1
		l.open--
	}
	s.httpConn, s.connect, s.out = false, 0, nil
	s.state = wsHTTPWait
}
