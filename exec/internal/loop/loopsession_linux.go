package loop

import (
	"github.com/tressi/tressi/exec/internal/run"
	"github.com/tressi/tressi/internal/cookiejar"
	"github.com/tressi/tressi/internal/digest"
	"github.com/tressi/tressi/plan"
	"github.com/tressi/tressi/results"
)

// lsession is a scenario's session run by a loop: its place in the steps,
// its captured values and, with connection = "session", its own
// connections. Sessions are kept in the loop's table and reused, with
// their buffers, so a steady run allocates none.
//
// It is the one step cursor for HTTP steps: an HTTP scenario's session
// runs all its steps as one, a WebSocket scenario's session the HTTP steps
// before its connect (a login), on the pool like any other; at the
// connect it hands its cursor, captures and timing back to its WebSocket
// session (ws), which dials from there (wsconn_linux.go).
type lsession struct {
	k        uint64
	entry    int32
	user     int32 // the closed-model user running it; -1 in the open model
	ws       int32 // the WebSocket session whose HTTP steps it runs; -1: none
	sc       *run.Program
	end      int   // the steps it runs: all, or those before the connect
	step     int   // the step of the next request
	rep      int   // its repeat
	ready    int64 // when the next request is ready: the last one's end plus think
	deadline int64 // no request starts after it
	started  bool  // a request went out, or was recorded as capture_failed
	answered bool  // the last request got a response
	cut      bool  // the run's stop cut it: its rest was recorded as not sent
	failed   bool  // some request failed (a WebSocket session counts as failed then)
	cap      run.Captured
	conns    []*lconn         // by target: the session's own connections
	jar      cookiejar.Jar    // its cookies (cookies_linux.go), emptied for the next session
	digest   *digest.Answerer // its digest_auth answers, once challenged (digest_linux.go)
	call     lcall            // its gRPC streaming call (grpcstream_linux.go)
}

// startSession starts entry's session for slot k, ready at ready; user is
// the closed-model user running it, or -1.
func (l *evloop) startSession(k uint64, entry int, user int32, ready, deadline int64) {
	sc := l.ex.Scen.ByEntry[entry]
	l.runSteps(k, sc, user, ready, deadline, -1, len(sc.Steps))
}

// runSteps starts a session of sc for slot k running its steps before
// end; ws is the WebSocket session it runs them for, or -1.
func (l *evloop) runSteps(k uint64, sc *run.Program, user int32, ready, deadline int64, ws int32, end int) {
	id := l.newSession()
	s := &l.sessions[id]
	s.k, s.entry, s.user, s.ws, s.sc, s.end = k, int32(sc.Entry), user, ws, sc, end
	s.step, s.rep, s.ready, s.deadline, s.started, s.answered, s.cut, s.failed = 0, 0, ready, deadline, false, false, false, false
	s.cap.Reset(sc.Captures)
	if s.conns == nil {
		s.conns = make([]*lconn, len(l.targets))
	}
	s.jar.Reset()
	s.digest = nil
	l.liveSessions++
	l.sessionNext(id)
}

func (l *evloop) newSession() int32 {
	if n := len(l.freeSessions); n > 0 {
		id := l.freeSessions[n-1]
		l.freeSessions = l.freeSessions[:n-1]
		return id
	}
	l.sessions = append(l.sessions, lsession{})
	return int32(len(l.sessions) - 1)
}

// sessionNext sends session id's next request once it is ready (a think
// time waits in the loop's wake heap), records capture_failed for requests
// missing a value, and ends the session after its last step. Requests are
// scheduled at the instant they became ready (previous end + think), so
// corrected latency also covers the waits inside a session. No request
// starts at or after the deadline or once the run stops: what is left of
// the session is then recorded as not_sent (run.Halt.StopsSession).
func (l *evloop) sessionNext(id int32) {
	s := &l.sessions[id]
	sc := s.sc
	for s.step < s.end {
		st := &sc.Steps[s.step]
		if s.rep >= st.Repeat {
			s.step, s.rep = s.step+1, 0
			continue
		}
		if s.started {
			if l.ex.CutSession(l.ex.Look(), l.now, s.deadline, &s.cut) {
				l.stepsOver(id, true)
				return
			}
			if s.ready > l.now {
				l.wakeSession(s.ready, id)
				return
			}
		}
		s.started = true
		if !s.cap.HasAll(st.Needs) {
			l.sink.Unsent(s.k, st, s.ready, results.CaptureFailed)
			s.failed = true
			s.rep++
			continue // nothing was sent, so there is nothing to think about
		}
		if st.Kind.Call() && st.Kind != plan.StepCallOpen {
			if l.callStep(id, st) {
				continue
			}
			return
		}
		l.dispatch(ljob{k: s.k, entry: s.entry, user: -1, sess: id, ws: s.ws >= 0, st: st, pr: st.Req,
			sched: s.ready, ready: l.now, own: sc.OwnConn})
		return
	}
	l.stepsOver(id, false)
}

// stepsOver ends session id after its last step or, cut, once what is
// left of it was recorded as not sent. A WebSocket session's HTTP steps
// hand it back to its WebSocket session instead, which records the rest
// or dials its connection: the lsession is free first, since starting a
// queued session from there takes one.
func (l *evloop) stepsOver(id int32, cut bool) {
	s := &l.sessions[id]
	switch {
	case s.ws >= 0:
		w := l.ws.takeBack(s)
		l.freeSession(id)
		l.ws.afterHTTP(w, cut)
		return
	case cut:
		l.sink.NotSentFrom(s.k, s.sc, s.step, s.rep, s.ready)
	}
	l.endSession(id)
}

// sessionCapture fills the session's capture slots from resp, the
// response to j, by the one success rule (run.Succeeded). It runs before
// the connection takes another job.
// A WebSocket session's HTTP step that does not succeed fails the session.
func (l *evloop) sessionCapture(j *ljob, resp *lresponse) {
	st := j.st
	if len(st.Capture) == 0 && !j.ws {
		return
	}
	s := &l.sessions[j.sess]
	ok := run.Succeeded(st.Req, resp.status, true)
	s.failed = s.failed || !ok
	if len(st.Capture) > 0 {
		st.FillCaptures(&s.cap, &resp.RawResponse, ok)
		st.CookieCapture(&s.cap, l.cookieStore(j), &l.ex.Cookies, j.target(), resp.reqPath, ok)
	}
}

// sessionDone follows a session's request that ended at done, answered or
// not: the next request. After a response with no think time it goes out
// at once; otherwise through the wake heap, so a server refusing every
// connection cannot recurse the loop into itself.
func (l *evloop) sessionDone(j *ljob, done int64, answered bool) {
	s := &l.sessions[j.sess]
	st := j.st
	s.rep++
	s.ready = done + st.Think
	s.answered = answered
	if !answered {
		st.FillCaptures(&s.cap, nil, false) // no response: its captures are missing
		s.failed = true
	}
	// In the open model (sessions without a user) the next step waits for
	// the next burst; see runOpen.
	if !answered || st.Think > 0 || s.user < 0 {
		l.wakeSession(s.ready, j.sess)
		return
	}
	l.now = done
	l.sessionNext(j.sess)
}

// endSession closes the session's own connections and hands its user, if
// any, to its next request.
func (l *evloop) endSession(id int32) {
	s := &l.sessions[id]
	l.callEnd(s)
	for t, c := range s.conns {
		if c != nil {
			l.closeConn(c)
			l.refill(l.targets[t])
		}
	}
	user, answered, end := s.user, s.answered, l.now
	l.freeSession(id)
	if user >= 0 {
		l.userDone(user, end, answered)
	}
}

// freeSession puts session id back in the table for the next one.
func (l *evloop) freeSession(id int32) {
	l.sessions[id].sc = nil
	l.freeSessions = append(l.freeSessions, id)
	l.liveSessions--
}

// dropSessionJob records what is left of a queued session job's session
// as not sent after a stop, and ends the session.
func (l *evloop) dropSessionJob(j *ljob) { l.stepsOver(j.sess, true) }
