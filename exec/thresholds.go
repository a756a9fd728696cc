package exec

import (
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/tressi/tressi/plan"
)

// thresholds evaluates the plan's thresholds: error rate, error count and
// status codes live (early exit when Abort), latency percentiles at the end.
type thresholds struct {
	t  plan.Thresholds
	ex *executor

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

func newThresholds(t plan.Thresholds, ex *executor) *thresholds {
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
		th.ex.stop(false)
	}
}

// stopEarly records reason as a failure and stops the run whatever Abort
// says: the caller's Watch asked for it.
func (th *thresholds) stopEarly(reason string) {
	name, detail, _ := strings.Cut(reason, ": ")
	th.fail(name, detail, false)
	th.ex.stop(false)
}

// statusSeen is called by a worker that got one of the abort statuses.
func (th *thresholds) statusSeen(status uint16) {
	th.fail("status_codes", fmt.Sprintf("got status %d", status), true)
}

// observe takes the live totals at now and checks error_count and the
// windowed error_rate.
func (th *thresholds) observe(now, done, failed int64) {
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

// final checks the latency percentiles on corrected latency once the
// recorder is done.
func (th *thresholds) final(quantile func(float64) int64) {
	for _, c := range []struct {
		name  string
		q     float64
		limit time.Duration
	}{{"p50", 50, th.t.P50}, {"p90", 90, th.t.P90}, {"p95", 95, th.t.P95}, {"p99", 99, th.t.P99}, {"p999", 99.9, th.t.P999}} {
		if c.limit <= 0 {
			continue
		}
		v := quantile(c.q)
		if v < 0 {
			th.fail(c.name, "no responses to measure", false)
			continue
		}
		if time.Duration(v) > c.limit {
			th.fail(c.name, fmt.Sprintf("%v > %v", time.Duration(v).Round(time.Microsecond), c.limit), false)
		}
	}
}

// list returns the failures so far.
func (th *thresholds) list() []string {
	th.mu.Lock()
	defer th.mu.Unlock()
	return append([]string(nil), th.failures...)
}
