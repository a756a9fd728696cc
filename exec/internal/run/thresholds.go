package run

import (
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/tressi/tressi/results"
)

// thresholds watches the plan's live thresholds while the run goes:
// error rate over a window, error count and status codes, stopping the run
// early when Abort says so. The run's verdict is not this: it is
// results.Evaluate over the whole run, once it ended (see verdict.go).
type thresholds struct {
	t  results.Thresholds
	ex *Executor

	mu       sync.Mutex // guards failures; taken only when a threshold fails
	failures []string
	failed   map[string]bool

	// The live error-rate window: one (done, failed) sample per tick.
	hist []tick
}

type tick struct {
	at           int64
	done, failed int64
}

const (
	// rateWindow is how far back the live error rate looks.
	rateWindow = 2 * time.Second
	// minWindowRequests keeps a handful of early failures from ending a run.
	minWindowRequests = 20
)

func NewThresholds(t results.Thresholds, ex *Executor) *thresholds {
	return &thresholds{t: t, ex: ex, failed: map[string]bool{}}
}

// fail records a failed threshold once, and stops the run when the plan
// asks for early exit.
func (th *thresholds) fail(name, detail string, live bool) {
	th.mu.Lock()
	if !th.failed[name] {
		th.failed[name] = true
		th.failures = append(th.failures, name+": "+detail)
	}
	th.mu.Unlock()
	if live && th.t.Abort {
		th.ex.Stop(false)
	}
}

// StopEarly records reason as a failure and stops the run whatever Abort
// says: the caller's Watch asked for it.
func (th *thresholds) StopEarly(reason string) {
	name, detail, _ := strings.Cut(reason, ": ")
	th.fail(name, detail, false)
	th.ex.Stop(false)
}

// statusSeen is called by a worker that got one of the abort statuses.
func (th *thresholds) statusSeen(status uint16) {
	if th.ex.Stopping() {
		return // see observe
	}
	th.fail("status_codes", fmt.Sprintf("got status %d", status), true)
}

// Observe takes the live totals at now and checks error_count and the
// windowed error_rate.
//
// Once the run is stopping (a threshold, an interrupt, a watch), the live
// thresholds judge no more: they can stop nothing, and what they would
// see then is the stop's doing, not the server's (the grace's last
// answers, cut-off requests). The failures they list are what stopped the
// run; the verdict on the whole run is results.Evaluate's (verdict.go).
func (th *thresholds) Observe(now, done, failed int64) {
	if th.ex.Stopping() {
		return
	}
	if th.t.ErrorCount > 0 && failed > th.t.ErrorCount {
		th.fail("error_count", fmt.Sprintf("%d errors > %d", failed, th.t.ErrorCount), true)
	}
	if th.t.ErrorRate <= 0 {
		return
	}
	th.hist = append(th.hist, tick{now, done, failed})
	cut := 0
	for cut < len(th.hist)-1 && now-th.hist[cut+1].at >= int64(rateWindow) {
		cut++
	}
	th.hist = th.hist[cut:]
	first := th.hist[0]
	n, f := done-first.done, failed-first.failed
	if n >= minWindowRequests {
		if rate := float64(f) / float64(n); rate > th.t.ErrorRate {
			th.fail("error_rate", fmt.Sprintf("%.4g over the last %v > %.4g", rate, rateWindow, th.t.ErrorRate), true)
		}
	}
}

// ObserveLatency judges the latency limits over the recorder's live
// window, once the run is LiveDelay old and the window holds LiveMinCount
// responses (a few slow first requests, a cold cache, end no run).
func (th *thresholds) ObserveLatency(now int64) {
	live := th.ex.Rec.Live
	if live == nil || th.ex.Stopping() || now < int64(th.t.LiveDelay) {
		return
	}
	w := live.Window()
	if w == nil || w.Count < th.t.LiveMinCount {
		return
	}
	for _, l := range []struct {
		name  string
		limit time.Duration
		got   float64
	}{{"p50", th.t.P50, w.P50}, {"p90", th.t.P90, w.P90}, {"p95", th.t.P95, w.P95}, {"p99", th.t.P99, w.P99},
		{"p999", th.t.P999, w.P999}, {"max", th.t.Max, w.Max}} {
		if limit := float64(l.limit) / 1e6; l.limit > 0 && l.got > limit {
			th.fail(l.name, fmt.Sprintf("%.4g ms over the last %v > %.4g ms", l.got, th.t.LiveWindow, limit), true)
		}
	}
}

// List returns the live failures so far.
func (th *thresholds) List() []string {
	th.mu.Lock()
	defer th.mu.Unlock()
	return append([]string(nil), th.failures...)
}
