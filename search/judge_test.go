package search

import (
	"strings"
	"testing"
	"time"

	"github.com/tressi/tressi/results"
)

const ms = int64(time.Millisecond)

func p99(limit time.Duration) results.Thresholds { return results.Thresholds{P99: limit, Abort: true} }

// uniformDues are a constant rate's slot instants over total.
func uniformDues(rate int64, total time.Duration) []int64 {
	n := rate * int64(total) / int64(time.Second)
	out := make([]int64, n)
	for i := range out {
		out[i] = int64(i) * int64(time.Second) / rate
	}
	return out
}

func answered(due, latency int64) *results.Row {
	return &results.Row{Scheduled: due, Sent: due, Latency: latency, Service: latency, Status: 200}
}

func never(int64) func() int64 { return func() int64 { return 0 } }

func TestJudgeIgnoresWarmup(t *testing.T) {
	j := NewJudge(p99(50*time.Millisecond), false, nil, time.Second, 3*time.Second)
	for i := range int64(1000) { // a terrible warmup
		j.Observe(answered(i*ms, 900*ms), true)
	}
	for i := range int64(2000) { // a good hold
		j.Observe(answered(int64(time.Second)+i*ms, ms), true)
	}
	if r := j.Watch(int64(3*time.Second), never(0)); r != "" {
		t.Fatalf("stopped on warmup rows: %s", r)
	}
	v, tally := j.Final("")
	if !v.Passed || tally.Rows != 2000 || tally.Quantile(99) > 2*time.Millisecond {
		t.Fatalf("verdict %+v over %d rows, p99 %v; want a pass over the 2000 hold rows", v, tally.Rows, tally.Quantile(99))
	}
}

func TestJudgeDoesNotStopOnAFewSlowFirstRequests(t *testing.T) {
	dues := uniformDues(1000, 11*time.Second)
	j := NewJudge(p99(50*time.Millisecond), false, dues, time.Second, 11*time.Second)
	for i := range 10 { // the hold's first ten requests are slow
		d := dues[1000+i]
		j.Observe(answered(d, 500*ms), true)
	}
	for i := 10; i < 50; i++ {
		j.Observe(answered(dues[1000+i], ms), true)
	}
	now := dues[1050]
	if r := j.Watch(now, func() int64 { return 50 }); r != "" {
		t.Fatalf("stopped after 10 slow requests of 50: %s", r)
	}
}

// In the open model, requests due long ago that have no answer already have
// a corrected latency above the limit: once they are more than 1% of the
// hold, p99 has failed whatever happens next.
func TestJudgeStopsOnBacklog(t *testing.T) {
	dues := uniformDues(1000, 3*time.Second) // 1s warmup, 2s hold: 2000 judged
	j := NewJudge(p99(50*time.Millisecond), false, dues, time.Second, 3*time.Second)
	for _, d := range dues[:1000] {
		j.Observe(answered(d, ms), true) // the warmup went fine
	}
	now := int64(1300 * time.Millisecond) // 300 hold requests due, none answered
	r := j.Watch(now, func() int64 { return 1000 })
	if !strings.HasPrefix(r, "p99: 251 of the hold's 2000 requests") {
		t.Fatalf("reason %q, want p99 with the 251 requests due at least 50ms ago", r)
	}
	// The same instant, but exec counted 240 outcomes the recorder has not
	// handed over yet: they may be any of those requests, so the bound is
	// 10, not a failure.
	j2 := NewJudge(p99(50*time.Millisecond), false, dues, time.Second, 3*time.Second)
	for _, d := range dues[:1000] {
		j2.Observe(answered(d, ms), true)
	}
	if r := j2.Watch(now, func() int64 { return 1240 }); r != "" {
		t.Fatalf("stopped although the unseen outcomes may answer the backlog: %s", r)
	}
}

func TestJudgeStatisticalStop(t *testing.T) {
	// Closed model: no schedule to bound, so evidence must be statistical.
	j := NewJudge(p99(50*time.Millisecond), true, nil, 0, 10*time.Second)
	for i := range int64(999) {
		j.Observe(answered(i*ms, 80*ms), true)
	}
	if r := j.Watch(int64(time.Second), never(0)); r != "" {
		t.Fatalf("stopped with 999 samples, below the 1000 p99 needs: %s", r)
	}
	j.Observe(answered(999*ms, 80*ms), true)
	if r := j.Watch(int64(time.Second), never(0)); !strings.HasPrefix(r, "p99: 1000 of 1000 judged requests") {
		t.Fatalf("reason %q, want a p99 stop", r)
	}

	// 1.5% slow over 2000 samples is not 3σ above 1%: no stop yet.
	j = NewJudge(p99(50*time.Millisecond), true, nil, 0, 10*time.Second)
	for i := range int64(2000) {
		lat := ms
		if i%200 < 3 {
			lat = 80 * ms
		}
		j.Observe(answered(i*ms, lat), true)
	}
	if r := j.Watch(int64(2*time.Second), never(0)); r != "" {
		t.Fatalf("stopped on 1.5%% slow of 2000: %s", r)
	}
	v, _ := j.Final("")
	if v.Passed || !strings.HasPrefix(v.Reasons[0], "p99: 80.") {
		t.Fatalf("final %+v, want p99 failed at the end", v)
	}
}

func TestJudgeAbortFalseNeverStops(t *testing.T) {
	th := p99(50 * time.Millisecond)
	th.Abort = false
	j := NewJudge(th, true, nil, 0, 10*time.Second)
	for i := range int64(5000) {
		j.Observe(answered(i*ms, 900*ms), true)
	}
	if r := j.Watch(int64(5*time.Second), never(0)); r != "" {
		t.Fatalf("abort = false, yet stopped: %s", r)
	}
}

func TestJudgeErrorsAndStatuses(t *testing.T) {
	th := results.Thresholds{ErrorRate: 0.05, StatusCodes: []int{503}, Abort: true}
	dues := uniformDues(100, 11*time.Second)
	j := NewJudge(th, false, dues, time.Second, 11*time.Second)
	// 60 failures: more than 5% of the hold's 1000 requests, certain.
	for i := range 60 {
		row := answered(dues[100+i], ms)
		row.Status = 500
		j.Observe(row, false)
	}
	if r := j.Watch(dues[160], func() int64 { return 60 }); !strings.HasPrefix(r, "error_rate: 60 of the hold's 1000 requests failed") {
		t.Fatalf("reason %q, want a certain error_rate stop", r)
	}
	j = NewJudge(th, false, dues, time.Second, 11*time.Second)
	row := answered(dues[500], ms)
	row.Status = 503
	j.Observe(row, false)
	if r := j.Watch(dues[501], func() int64 { return 1 }); r != "status_codes: got status 503" {
		t.Fatalf("reason %q, want the 503", r)
	}
	// not_sent and interrupted rows are the stop's doing, not the service's.
	j = NewJudge(th, false, dues, time.Second, 11*time.Second)
	j.Observe(&results.Row{Scheduled: dues[200], Sent: -1, Latency: -1, Service: -1, Error: results.NotSent}, false)
	j.Observe(&results.Row{Scheduled: dues[201], Sent: dues[201], Latency: -1, Service: -1, Error: results.Interrupted}, false)
	j.Observe(answered(dues[202], ms), true)
	v, tally := j.Final("")
	if !v.Passed || tally.Failed != 0 || tally.Rows != 3 || tally.Counted != 1 {
		t.Fatalf("verdict %+v, tally %+v: want a pass counting only the answered row", v, tally)
	}
}

func TestFinalEarlyStopFails(t *testing.T) {
	j := NewJudge(p99(50*time.Millisecond), true, nil, 0, time.Second)
	j.Observe(answered(0, ms), true)
	v, _ := j.Final("p99: 30 of the hold's 2000 requests already took longer than 50ms")
	if v.Passed || !strings.HasPrefix(v.Reasons[0], "stopped early: p99") {
		t.Fatalf("verdict %+v, want a failure led by the early stop", v)
	}
}

func TestWilsonLower(t *testing.T) {
	for _, c := range []struct {
		k, n     int64
		min, max float64
	}{
		{0, 100, 0, 0.0001},
		{100, 100, 0.9, 1},
		{50, 1000, 0.03, 0.05},  // 5% observed: the 3σ lower end is near 3.4%
		{15, 1000, 0.005, 0.01}, // 1.5% observed is not 3σ above 1%
	} {
		if got := wilsonLower(c.k, c.n, 3); got < c.min || got > c.max {
			t.Errorf("wilsonLower(%d, %d) = %g, want in [%g, %g]", c.k, c.n, got, c.min, c.max)
		}
	}
}
