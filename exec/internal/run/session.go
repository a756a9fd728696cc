package run

import (
	"fmt"
	"time"

	"github.com/tressi/tressi/compile"
	"github.com/tressi/tressi/exec/internal/session"
	"github.com/tressi/tressi/internal/cookiejar"
	"github.com/tressi/tressi/results"
)

// scenarios is what the executor needs to run sessions: each scenario
// entry made ready, the per-target limits on sessions holding their own
// connection, and (open model) the pool sessions run on.
type scenarios struct {
	ByEntry []*Scenario // nil for endpoint entries
	conns   []sessionSlots
	pool    *sessionPool // open model only
}

// Scenario is one scenario entry made ready to run.
type Scenario struct {
	Steps    []SessionStep
	Captures int  // capture slots of a session
	OwnConn  bool // connection = "session": each session dials its own
}

// SessionStep is a step with its prepared request, its compiled captures
// and the capture slots its request needs filled.
type SessionStep struct {
	Req     *PreparedRequest
	Repeat  int
	Think   int64
	Capture []session.Capturer
	Needs   []int
	// What the captures read of a response: the loop keeps a response's
	// head, or its body up to captureBodyLimit, only when they do;
	// ReadsCookies: a cookie() capture reads the session's jar.
	ReadsHead, ReadsBody, ReadsCookies bool
}

// newSessionStep compiles an HTTP request step of a session, HTTP
// scenario or WebSocket (before its connect) alike: its request, repeats,
// think time, captures and the captured values it needs.
func newSessionStep(ex *Executor, st *compile.Step) (SessionStep, error) {
	ss := SessionStep{Req: &ex.Reqs[st.Request], Repeat: max(st.Repeat, 1), Think: int64(max(st.Think, 0))}
	for _, c := range st.Captures {
		cp, err := session.NewCapturer(c)
		if err != nil {
			return ss, fmt.Errorf("step %q: %w", st.Name, err)
		}
		ss.Capture = append(ss.Capture, cp)
		ss.ReadsBody = ss.ReadsBody || cp.ReadsBody()
		ss.ReadsHead = ss.ReadsHead || !cp.ReadsBody()
		ss.ReadsCookies = ss.ReadsCookies || c.Kind == compile.CaptureCookie
	}
	ss.Needs = ss.Req.Spec.CaptureSlots()
	return ss, nil
}

// slots is how many capture slots the step's captures and needs reach.
func (ss *SessionStep) slots() int {
	n := 0
	for i := range ss.Capture {
		n = max(n, ss.Capture[i].Index+1)
	}
	for _, i := range ss.Needs {
		n = max(n, i+1)
	}
	return n
}

// FillCaptures fills captured and have from resp, the response to a
// step's request, of status (answered false: none came): without a
// complete 2xx/3xx response every capture of the step is missing. The one
// capture rule of every session, on every engine, HTTP and WebSocket.
func (ss *SessionStep) FillCaptures(captured [][]byte, have []bool, resp session.CaptureSource, status int, answered bool) {
	ok := answered && status >= 200 && status <= 399
	for i := range ss.Capture {
		c := &ss.Capture[i]
		if !ok {
			have[c.Index] = false
			continue
		}
		captured[c.Index], have[c.Index] = c.Extract(captured[c.Index][:0], resp)
	}
}

// NewScenarios prepares the schedule's scenario entries; nil when it has
// none. Capture regexes are compiled here, once per run.
func NewScenarios(ex *Executor) (*scenarios, error) {
	s := ex.S
	sc := &scenarios{ByEntry: make([]*Scenario, len(s.Entries))}
	found := false
	for i := range s.Entries {
		e := &s.Entries[i]
		if !e.Scenario || e.WebSocket {
			continue // WebSocket sessions are the loop's WebSocket part's (wsloop_linux.go)
		}
		found = true
		p := &Scenario{OwnConn: e.Connection == compile.ConnectionSession}
		for i := range e.Steps {
			ss, err := newSessionStep(ex, &e.Steps[i])
			if err != nil {
				return nil, fmt.Errorf("scenario %q %w", e.Name, err)
			}
			p.Captures = max(p.Captures, ss.slots())
			p.Steps = append(p.Steps, ss)
		}
		sc.ByEntry[i] = p
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

// Entry is entry i made ready when it is a scenario; nil otherwise.
func (sc *scenarios) Entry(i int) *Scenario {
	if sc == nil {
		return nil
	}
	return sc.ByEntry[i]
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
	jar      cookiejar.Jar // the session's cookies, emptied for the next
	store    CookieStore   // &jar, the run's shared jar, or nil: no cookies
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
	sc := ex.Scen.ByEntry[entry]
	r.reset(sc.Captures)
	r.jar.Reset()
	r.store = r.cookieStore(entry)
	w.vals.Slot, w.vals.Row, w.vals.Captured = k, ex.S.Row(entry, k), r.captured
	defer r.conns.end()
	ready, first := due, true
	for i := range sc.Steps {
		st := &sc.Steps[i]
		for j := range st.Repeat {
			if !first && (ex.Stopping() || ex.PastEnd() || ready > deadline || !w.waitUntil(ready)) {
				if ex.Stopping() {
					w.NotSentFrom(k, sc, i, j, ready)
				} else if ex.PastEnd() {
					ex.Overrun.Cut.Add(1)
					w.NotSentFrom(k, sc, i, j, ready)
				}
				return
			}
			first = false
			if !r.ready(st) {
				r.captureFailed(k, st, ready)
				continue // nothing was sent, so there is nothing to think about
			}
			done, err := r.exchange(k, st, sc.OwnConn, ready)
			r.capture(st, err)
			ready = done + st.Think
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
func (r *sessionRunner) ready(st *SessionStep) bool {
	for _, i := range st.Needs {
		if !r.have[i] {
			return false
		}
	}
	return true
}

// captureFailed records a request that was not sent because a value it
// uses was never captured.
func (r *sessionRunner) captureFailed(k uint64, st *SessionStep, ready int64) {
	r.w.Unsent(k, st, ready, results.CaptureFailed)
}

// capture fills the step's capture slots from the response just received;
// without a complete 2xx/3xx response every one of them is missing.
func (r *sessionRunner) capture(st *SessionStep, err error) {
	if len(st.Capture) > 0 {
		status := r.w.resp.StatusCode()
		st.FillCaptures(r.captured, r.have, &r.w.cap, status, err == nil)
		st.CookieCapture(r.captured, r.have, r.store, &r.w.ex.Cookies, st.Req.Spec.Target, r.w.cpath, err == nil && status >= 200 && status <= 399)
	}
}

// exchange sends one request of a session, ready at ready, records its row
// and returns when it completed: worker.exchange with the session's values,
// its own connection when asked, and the response kept for captures.
func (r *sessionRunner) exchange(k uint64, st *SessionStep, ownConn bool, ready int64) (int64, error) {
	w, ex, pr := r.w, r.w.ex, st.Req
	req := w.request(pr)
	w.captureKeep = 0
	if st.ReadsBody {
		w.captureKeep = session.CaptureBodyLimit
	}
	client := pr.client
	if ownConn {
		var err error
		if client, err = r.conns.get(ex, pr.Spec.Target, pr.Timeout+time.Second); err != nil {
			w.resp.Reset() // no response: captures must not read the previous one
			done := ex.Clock.Now()
			w.record(pr, k, ready, done, err)
			return done, err
		}
	}
	return w.exchangeCookies(client, req, pr, k, ready, r.store)
}

// ScenarioSteps names each scenario's step endpoints in order, for the
// results' metadata: reports group a slot's rows of these into a session.
func ScenarioSteps(s *compile.Schedule) map[string][]string {
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
