package fast

import (
	"time"

	"github.com/tressi/tressi/compile"
	"github.com/tressi/tressi/exec/internal/run"
	"github.com/tressi/tressi/exec/internal/session"
	"github.com/tressi/tressi/internal/cookiejar"
	"github.com/tressi/tressi/results"
)

// sessionRunner runs sessions one after another on one worker, keeping
// what a session owns: its captured values and its own connections.
type sessionRunner struct {
	w     *worker
	cap   run.Captured // reused across sessions
	conns sessionConns
	jar   cookiejar.Jar   // the session's cookies, emptied for the next
	store run.CookieStore // &jar, the run's shared jar, or nil: no cookies
}

func newSessionRunner(w *worker) *sessionRunner {
	return &sessionRunner{w: w}
}

// run runs one session of entry for slot k due at due: every step in
// order, each repeated with its think time after every send. Requests are
// scheduled at the instant they became ready (previous completion + think),
// so corrected latency also covers the waits inside a session. No request
// starts at or after deadline or once the run stops: what is left of the
// session is then recorded as not_sent (run.Halt.StopsSession).
func (r *sessionRunner) run(k uint64, entry int, due, deadline int64) {
	w, ex := r.w, r.w.Ex
	sc := ex.Scen.ByEntry[entry]
	r.cap.Reset(sc.Captures)
	r.jar.Reset()
	r.store = r.cookieStore(entry)
	w.vals.Slot, w.vals.Row, w.vals.Captured = k, ex.S.Row(entry, k), r.cap.Values
	defer r.conns.end()
	if ex.S.Model == compile.Open { // the closed model counts its users instead
		w.Stats.Sessions.Add(1)
		defer w.Stats.Sessions.Add(-1)
	}
	ready, first, cut := due, true, false
	for i := range sc.Steps {
		st := &sc.Steps[i]
		for j := range st.Repeat {
			if !first && !r.mayGo(k, sc, i, j, ready, deadline, &cut) {
				return
			}
			first = false
			if !r.cap.HasAll(st.Needs) {
				r.captureFailed(k, st, ready)
				continue // nothing was sent, so there is nothing to think about
			}
			done, err := r.exchange(k, st, sc.OwnConn, ready)
			r.capture(st, err)
			ready = done + st.Think
		}
	}
}

// mayGo waits for step i's repeat j to be ready, at ready, and says
// whether it goes: by the rule every session follows, checked when it
// would go out, or at the session's deadline when that comes first. When
// it does not, it records what is left of the session as not_sent (cut:
// the session's flag, run.Executor.CutSession).
func (r *sessionRunner) mayGo(k uint64, sc *run.Program, i, j int, ready, deadline int64, cut *bool) bool {
	w, ex := r.w, r.w.Ex
	for {
		now := ex.Clock.Now()
		if ex.CutSession(ex.Look(), now, deadline, cut) {
			w.NotSentFrom(k, sc, i, j, ready)
			return false
		}
		if now >= ready {
			return true
		}
		w.waitUntil(min(ready, deadline)) // false: the run stops, which the next look sees
	}
}

// captureFailed records a request that was not sent because a value it
// uses was never captured.
func (r *sessionRunner) captureFailed(k uint64, st *run.Step, ready int64) {
	r.w.Unsent(k, st, ready, results.CaptureFailed)
}

// capture fills the step's capture slots from the response just received
// (err nil: a complete one), by the one success rule (run.Succeeded).
func (r *sessionRunner) capture(st *run.Step, err error) {
	if len(st.Capture) > 0 {
		ok := run.Succeeded(st.Req, r.w.resp.StatusCode(), err == nil)
		st.FillCaptures(&r.cap, &r.w.cap, ok)
		st.CookieCapture(&r.cap, r.store, &r.w.Ex.Cookies, r.w.lastTarget, r.w.cpath, ok)
	}
}

// exchange sends one request of a session, ready at ready, records its row
// and returns when it completed: worker.exchange with the session's values,
// its own connection when asked, and the response kept for captures.
func (r *sessionRunner) exchange(k uint64, st *run.Step, ownConn bool, ready int64) (int64, error) {
	w, ex, pr := r.w, r.w.Ex, st.Req
	req := w.request(pr)
	w.captureKeep = 0
	if st.ReadsBody {
		w.captureKeep = session.CaptureBodyLimit
	}
	client := pr.Client
	if ownConn {
		var err error
		if client, err = r.conns.get(r.w.eng, pr.Spec.Target, pr.Timeout+time.Second); err != nil {
			w.resp.Reset() // no response: captures must not read the previous one
			done := ex.Clock.Now()
			w.record(pr, k, ready, done, err)
			return done, err
		}
	}
	return w.exchangeCookies(client, req, pr, k, ready, r.store)
}
