package report

import (
	"maps"
	"math"
	"testing"

	"github.com/tressi/tressi/report/synth"
)

func TestSummaryMatchesTruth(t *testing.T) {
	checkAgainstTruth(t, synth.Spec{Rows: 300_000, Seed: 3, Rate: 5000})
}

// checkAgainstTruth builds a report of spec's run and compares every count
// and distribution with computeTruth.
func checkAgainstTruth(t *testing.T, spec synth.Spec) {
	t.Helper()
	rep, err := Build([]string{writeRun(t, spec)}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	tr := computeTruth(spec)
	s := rep.Summary
	for _, c := range []struct {
		name      string
		got, want int64
	}{
		{"requests", s.Requests, tr.requests}, {"sent", s.Sent, tr.sent}, {"ok", s.OK, tr.ok},
		{"errors", s.Errors, tr.errors()}, {"completed", s.Completed, tr.completed},
		{"not_sent", s.NotSent, tr.notSent}, {"interrupted", s.Interrupted, tr.interrupted},
	} {
		if c.got != c.want {
			t.Errorf("%s = %d, want %d", c.name, c.got, c.want)
		}
	}
	if want := float64(tr.errors()) / float64(tr.errors()+tr.ok); s.ErrorRate != want {
		t.Errorf("error_rate = %v, want %v", s.ErrorRate, want)
	}
	wantDur := float64(tr.lastEnd-tr.firstDue) / 1e9
	if s.DurationS != wantDur || s.ThroughputRPS != float64(tr.completed)/wantDur {
		t.Errorf("duration %v s, throughput %v, want %v s, %v", s.DurationS, s.ThroughputRPS, wantDur, float64(tr.completed)/wantDur)
	}
	if !maps.Equal(s.Status, tr.status) {
		t.Errorf("status = %v, want %v", s.Status, tr.status)
	}
	if !maps.Equal(s.ErrorKinds, tr.errorKinds) {
		t.Errorf("error_kinds = %v, want %v", s.ErrorKinds, tr.errorKinds)
	}
	checkPercentiles(t, "latency", s.Latency, tr.latency)
	checkPercentiles(t, "service", s.Service, tr.service)
	if len(s.Endpoints) != len(tr.endpoints) {
		t.Fatalf("%d endpoints, want %d", len(s.Endpoints), len(tr.endpoints))
	}
	for _, e := range s.Endpoints {
		et := tr.endpoints[e.Name]
		if want := et.requests - et.ok - et.unjudged; e.Requests != et.requests || e.OK != et.ok || e.Errors != want {
			t.Errorf("endpoint %s: requests/ok/errors %d/%d/%d, want %d/%d/%d", e.Name, e.Requests, e.OK, e.Errors, et.requests, et.ok, want)
		}
		if !maps.Equal(e.Status, et.status) {
			t.Errorf("endpoint %s status = %v, want %v", e.Name, e.Status, et.status)
		}
		checkPercentiles(t, "endpoint "+e.Name, e.Latency, et.latency)
	}
}

func TestSeriesAddsUp(t *testing.T) {
	spec := synth.Spec{Rows: 50_000, Seed: 4, Rate: 2000}
	rep, err := Build([]string{writeRun(t, spec)}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var completed, errors int64
	for _, sec := range rep.Series {
		completed += sec.Completed
		errors += sec.Errors
		if sec.Completed > 100 && (sec.P50Ms <= 0 || sec.P99Ms < sec.P50Ms) {
			t.Errorf("second %d: p50 %v, p99 %v", sec.T, sec.P50Ms, sec.P99Ms)
		}
	}
	if completed != rep.Completed || errors != rep.Errors {
		t.Errorf("series totals %d completed, %d errors; summary %d, %d", completed, errors, rep.Completed, rep.Errors)
	}
	if n := len(rep.Series); n < 25 || n > 27 { // 25 s of arrivals plus the tail
		t.Errorf("%d seconds in the series, want about 25", n)
	}
}

func TestCompactHistogramWithinOnePercent(t *testing.T) {
	var h compactHistogram
	var sorted []int64
	for v := int64(1); v < 5e9; v = v*21/20 + 1 {
		h.record(v)
		sorted = append(sorted, v)
	}
	for _, q := range []float64{0.01, 0.5, 0.9, 0.99, 1} {
		got, want := float64(h.quantile(q, int64(len(sorted)))), rank(sorted, q)*1e6
		if math.Abs(got-want)/want > 0.01 {
			t.Errorf("q%v = %v, want %v within 1%%", q, got, want)
		}
	}
}

func TestThresholds(t *testing.T) {
	spec := synth.Spec{Rows: 20_000, Seed: 5, Rate: 2000}
	dir := writeRun(t, spec)
	rep, err := Build([]string{dir}, Options{Thresholds: thresholdsFor(0.5, 1, 0)})
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]ThresholdResult{}
	for _, r := range rep.Thresholds {
		byName[r.Name] = r
	}
	if !byName["error_rate"].OK || byName["p99"].OK || byName["status_codes"].OK {
		t.Errorf("thresholds = %+v; want error_rate ok, p99 (1 ms) failed, status_codes (500) failed", rep.Thresholds)
	}
	if rep.ThresholdsPassed() {
		t.Error("ThresholdsPassed with failures")
	}
}
