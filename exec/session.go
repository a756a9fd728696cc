package exec

import (
	"fmt"
	"time"

	"github.com/tressi/tressi/compile"
	"github.com/tressi/tressi/results"
)

// scenarios is what the executor needs to run sessions: each scenario
// entry made ready, the per-target limits on sessions holding their own
// connection, and (open model) the pool sessions run on.
type scenarios struct {
	byEntry []*scenario // nil for endpoint entries
	conns   []sessionSlots
	pool    *sessionPool // open model only
}

// scenario is one scenario entry made ready to run.
type scenario struct {
	steps    []sessionStep
	captures int  // capture slots of a session
	ownConn  bool // connection = "session": each session dials its own
}

// sessionStep is a step with its prepared request, its compiled captures
// and the capture slots its request needs filled.
type sessionStep struct {
	req     *preparedRequest
	repeat  int
	think   int64
	capture []capturer
	needs   []int
	// What the captures read of a response: the loop keeps a response's
	// head, or its body up to captureBodyLimit, only when they do.
	readsHead, readsBody bool
}

// newSessionStep compiles an HTTP request step of a session, HTTP
// scenario or WebSocket (before its connect) alike: its request, repeats,
// think time, captures and the captured values it needs.
func newSessionStep(ex *executor, st *compile.Step) (sessionStep, error) {
	ss := sessionStep{req: &ex.reqs[st.Request], repeat: max(st.Repeat, 1), think: int64(max(st.Think, 0))}
	for _, c := range st.Captures {
		cp, err := newCapturer(c)
		if err != nil {
			return ss, fmt.Errorf("step %q: %w", st.Name, err)
		}
		ss.capture = append(ss.capture, cp)
		ss.readsBody = ss.readsBody || cp.readsBody()
		ss.readsHead = ss.readsHead || !cp.readsBody()
	}
	ss.needs = ss.req.spec.CaptureSlots()
	return ss, nil
}

// slots is how many capture slots the step's captures and needs reach.
func (ss *sessionStep) slots() int {
	n := 0
	for i := range ss.capture {
		n = max(n, ss.capture[i].index+1)
	}
	for _, i := range ss.needs {
		n = max(n, i+1)
	}
	return n
}

// fillCaptures fills captured and have from resp, the response to a
// step's request, of status (answered false: none came): without a
// complete 2xx/3xx response every capture of the step is missing. The one
// capture rule of every session, on every engine, HTTP and WebSocket.
func (ss *sessionStep) fillCaptures(captured [][]byte, have []bool, resp captureSource, status int, answered bool) {
	ok := answered && status >= 200 && status <= 399
	for i := range ss.capture {
		c := &ss.capture[i]
		if !ok {
			have[c.index] = false
			continue
		}
		captured[c.index], have[c.index] = c.extract(captured[c.index][:0], resp)
	}
}

// newScenarios prepares the schedule's scenario entries; nil when it has
// none. Capture regexes are compiled here, once per run.
func newScenarios(ex *executor) (*scenarios, error) {
	s := ex.s
	sc := &scenarios{byEntry: make([]*scenario, len(s.Entries))}
	found := false
	for i := range s.Entries {
		e := &s.Entries[i]
		if !e.Scenario || e.WebSocket {
			continue // WebSocket sessions are the loop's WebSocket part's (wsloop_linux.go)
		}
		found = true
		p := &scenario{ownConn: e.Connection == compile.ConnectionSession}
		for i := range e.Steps {
			ss, err := newSessionStep(ex, &e.Steps[i])
			if err != nil {
				return nil, fmt.Errorf("scenario %q %w", e.Name, err)
			}
			p.captures = max(p.captures, ss.slots())
			p.steps = append(p.steps, ss)
		}
		sc.byEntry[i] = p
	}
	if !found {
		return nil, nil
	}
	for i := range s.Targets {
		sc.conns = append(sc.conns, newSessionSlots(s.Targets[i].Connections))
	}
	if s.Model == compile.Open {
		sc.pool = newSessionPool(ex)
	}
	return sc, nil
}

// entry is entry i made ready when it is a scenario; nil otherwise.
func (sc *scenarios) entry(i int) *scenario {
	if sc == nil {
		return nil
	}
	return sc.byEntry[i]
}

// wait waits for the sessions still running once no more can start.
func (sc *scenarios) wait() {
	if sc != nil && sc.pool != nil {
		sc.pool.wait()
	}
}

// sessionRunner runs sessions one after another on one worker, keeping
// what a session owns: its captured values and its own connections.
type sessionRunner struct {
	w        *worker
	captured [][]byte // capture slot → value, reused across sessions
	have     []bool   // capture slot → captured and not empty
	conns    sessionConns
}

func newSessionRunner(w *worker) *sessionRunner {
	return &sessionRunner{w: w}
}

// run runs one session of entry for slot k due at due: every step in
// order, each repeated with its think time after every send. Requests are
// scheduled at the instant they became ready (previous completion + think),
// so corrected latency also covers the waits inside a session. No request
// starts after deadline or once the run stops; the session just ends.
func (r *sessionRunner) run(k uint64, entry int, due, deadline int64) {
	w, ex := r.w, r.w.ex
	sc := ex.scen.byEntry[entry]
	r.reset(sc.captures)
	w.vals.Slot, w.vals.Row, w.vals.Captured = k, ex.s.Row(entry, k), r.captured
	defer r.conns.end()
	ready, first := due, true
	for i := range sc.steps {
		st := &sc.steps[i]
		for j := range st.repeat {
			if !first && (ex.stopping() || ex.pastEnd() || ready > deadline || !w.waitUntil(ready)) {
				if ex.stopping() {
					w.notSentFrom(k, sc, i, j, ready)
				} else if ex.pastEnd() {
					ex.overrun.cut.Add(1)
					w.notSentFrom(k, sc, i, j, ready)
				}
				return
			}
			first = false
			if !r.ready(st) {
				r.captureFailed(k, st, ready)
				continue // nothing was sent, so there is nothing to think about
			}
			done, err := r.exchange(k, st, sc.ownConn, ready)
			r.capture(st, err)
			ready = done + st.think
		}
	}
}

// reset readies the capture slots for a new session.
func (r *sessionRunner) reset(n int) {
	for len(r.captured) < n {
		r.captured = append(r.captured, nil)
		r.have = append(r.have, false)
	}
	for i := range r.have {
		r.captured[i], r.have[i] = r.captured[i][:0], false
	}
}

// ready reports whether every captured value the step's request uses is there.
func (r *sessionRunner) ready(st *sessionStep) bool {
	for _, i := range st.needs {
		if !r.have[i] {
			return false
		}
	}
	return true
}

// captureFailed records a request that was not sent because a value it
// uses was never captured.
func (r *sessionRunner) captureFailed(k uint64, st *sessionStep, ready int64) {
	r.w.unsent(k, st, ready, results.CaptureFailed)
}

// capture fills the step's capture slots from the response just received;
// without a complete 2xx/3xx response every one of them is missing.
func (r *sessionRunner) capture(st *sessionStep, err error) {
	if len(st.capture) > 0 {
		st.fillCaptures(r.captured, r.have, &r.w.cap, r.w.resp.StatusCode(), err == nil)
	}
}

// exchange sends one request of a session, ready at ready, records its row
// and returns when it completed: worker.exchange with the session's values,
// its own connection when asked, and the response kept for captures.
func (r *sessionRunner) exchange(k uint64, st *sessionStep, ownConn bool, ready int64) (int64, error) {
	w, ex, pr := r.w, r.w.ex, st.req
	req := w.request(pr)
	w.captureKeep = 0
	if st.readsBody {
		w.captureKeep = captureBodyLimit
	}
	client := pr.client
	if ownConn {
		var err error
		if client, err = r.conns.get(ex, pr.spec.Target, pr.timeout+time.Second); err != nil {
			w.resp.Reset() // no response: captures must not read the previous one
			done := ex.clock.now()
			w.record(pr, k, ready, done, err)
			return done, err
		}
	}
	return w.exchange(client, req, pr, k, ready)
}

// scenarioSteps names each scenario's step endpoints in order, for the
// results' metadata: reports group a slot's rows of these into a session.
func scenarioSteps(s *compile.Schedule) map[string][]string {
	var m map[string][]string
	for _, e := range s.Entries {
		if !e.Scenario {
			continue
		}
		if m == nil {
			m = map[string][]string{}
		}
		for _, st := range e.Steps {
			m[e.Name] = append(m[e.Name], st.Name)
		}
	}
	return m
}
