package loop

import (
	"github.com/tressi/tressi/exec/internal/run"
	"github.com/tressi/tressi/results"
)

// HTTP steps before a WebSocket session's connect: log in over HTTP,
// capture a token, send it in the connect's headers. They run in order,
// each request a job of the loop's own (ljob.ws), on the loop's pooled
// connections to its step's target like any HTTP scenario's: the same
// dispatch, queue, timeouts, retries, rows, samples and capture rule
// (run.Succeeded, Step.FillCaptures). Each request is one row:
// latency from when the step became ready (the previous response plus
// think), its captures taken from a response its step expects, and a request missing a captured value is
// capture_failed. After the last, the session dials its WebSocket
// connection. A connect whose headers or path need a value no step
// captured is capture_failed too, and the session's other rows ws_closed.

// httpStep is the HTTP step the session's cursor is on.
func (s *wsSession) httpStep() *run.Step { return &s.prog.Steps[s.i] }

// httpNext runs the session's HTTP steps from its cursor: the next request
// once its step is ready, capture_failed rows for requests missing a
// value, and after the last the WebSocket connection.
func (l *wsLoop) httpNext(s *wsSession) {
	for s.i < s.prog.Connect {
		st := s.httpStep()
		if s.j >= st.Repeat {
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
		if !s.cap.HasAll(st.Needs) {
			l.keep(s, run.WSRow(s.k, st.Ep, s.ready, -1, -1, 0, results.CaptureFailed, 0, 0), st)
			s.j++
			continue
		}
		s.state, s.dispatching = wsHTTPBusy, true
		l.host.dispatch(ljob{k: s.k, entry: int32(s.prog.Entry), user: -1, st: st, sess: s.id, ws: true,
			pr: st.Req, sched: s.ready, ready: l.now})
		s.dispatching = false
		if s.state == wsHTTPBusy {
			return // in flight, or waiting for a connection
		}
		// It ended at once (a dial that failed): on to the next, in this
		// loop (a run of failures does not recurse).
		l.now = l.ex.Clock.Now()
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
	if st := s.prog.ConnectStep(); !s.cap.HasAll(st.Needs) {
		l.connectFailed(s, st, results.CaptureFailed)
		return
	}
	l.dialWS(s)
}

// httpAnswered takes the captures of the session's HTTP step from resp,
// the response to its job j, by the one success rule (run.Succeeded),
// before the connection carries another.
func (l *wsLoop) httpAnswered(j *ljob, resp *lresponse) {
	s := l.sess[j.sess]
	ok := run.Succeeded(j.st.Req, resp.status, true)
	j.st.FillCaptures(&s.cap, &resp.RawResponse, ok)
	if !ok {
		s.failed = true
	}
}

// httpJobDone follows the session's HTTP step's job, which ended at done
// (its row recorded): without an answer its captures are missing and the
// session failed; then the next step, think time after.
func (l *wsLoop) httpJobDone(j *ljob, done int64, answered bool) {
	s := l.sess[j.sess]
	if !answered {
		s.failed = true
		j.st.FillCaptures(&s.cap, nil, false)
	}
	s.j++
	s.ready = done + j.st.Think
	s.state = wsHTTPWait
	if s.dispatching {
		return // httpNext, which dispatched it, goes on
	}
	l.now = l.ex.Clock.Now()
	l.httpNext(s)
}

// httpDropped records what is left of a session whose HTTP step's job
// waited for a connection when the run stopped, and ends the session.
func (l *wsLoop) httpDropped(j *ljob) {
	s := l.sess[j.sess]
	l.restRows(s, results.NotSent)
	l.endSession(s)
}
