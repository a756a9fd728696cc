package report

import (
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/tressi/tressi/report/synth"
	"github.com/tressi/tressi/results"
)

// writeRun writes a synthetic run directory for a test.
func writeRun(t testing.TB, s synth.Spec) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "run-"+s.Shard.String()[:1])
	if _, err := synth.WriteRun(dir, s); err != nil {
		t.Fatal(err)
	}
	return dir
}

// truth is the summary recomputed from synth's rows by counting and sorting,
// independently of the streaming code under test.
type truth struct {
	requests, sent, ok, completed int64
	notSent, interrupted          int64
	status                        map[string]int64
	errorKinds                    map[string]int64
	endpoints                     map[string]*endpointTruth
	latency, service              []int64
	firstDue, lastEnd             int64
}

type endpointTruth struct {
	requests, ok int64
	unjudged     int64 // not_sent and interrupted rows
	status       map[string]int64
	latency      []int64
}

func computeTruth(s synth.Spec) *truth {
	tr := &truth{status: map[string]int64{}, errorKinds: map[string]int64{}, endpoints: map[string]*endpointTruth{},
		firstDue: math.MaxInt64, lastEnd: math.MinInt64}
	for k := uint64(0); k < uint64(s.Rows); k++ {
		if !s.Owns(k) {
			continue
		}
		for _, r := range s.SlotRows(k) {
			tr.addRow(s.EndpointNames()[r.Endpoint], r)
		}
	}
	slices.Sort(tr.latency)
	slices.Sort(tr.service)
	for _, ep := range tr.endpoints {
		slices.Sort(ep.latency)
	}
	return tr
}

// addRow counts one row of endpoint name.
func (tr *truth) addRow(name string, r results.Row) {
	ep := tr.endpoints[name]
	if ep == nil {
		ep = &endpointTruth{status: map[string]int64{}}
		tr.endpoints[name] = ep
	}
	tr.requests++
	ep.requests++
	st := strconv.Itoa(int(r.Status))
	tr.status[st]++
	ep.status[st]++
	if r.Error != results.None {
		tr.errorKinds[r.Error.String()]++
	}
	switch r.Error {
	case results.NotSent:
		tr.notSent++
		ep.unjudged++
	case results.Interrupted:
		tr.interrupted++
		ep.unjudged++
	}
	if r.Sent >= 0 {
		tr.sent++
	}
	tr.firstDue = min(tr.firstDue, r.Scheduled)
	if r.Latency < 0 {
		return
	}
	tr.completed++
	tr.lastEnd = max(tr.lastEnd, r.Scheduled+r.Latency)
	tr.latency = append(tr.latency, r.Latency)
	tr.service = append(tr.service, r.Service)
	ep.latency = append(ep.latency, r.Latency)
	if r.Error == results.None && results.ExpectsStatus(synth.Expect[name], int(r.Status)) {
		tr.ok++
		ep.ok++
	}
}

// errors is the truth's failed requests: neither ok nor cut off by a stop
// (not_sent, interrupted), which are no verdict on the server.
func (tr *truth) errors() int64 { return tr.requests - tr.ok - tr.notSent - tr.interrupted }

// rank is the nearest-rank q-quantile of sorted values, in ms.
func rank(sorted []int64, q float64) float64 {
	i := int(math.Ceil(q*float64(len(sorted)))) - 1
	return float64(sorted[max(i, 0)]) / 1e6
}

func mean(sorted []int64) float64 {
	var sum float64
	for _, v := range sorted {
		sum += float64(v)
	}
	return sum / float64(len(sorted)) / 1e6
}

// checkPercentiles compares p with the sorted truth: quantiles within 1%,
// min and max exact, mean to rounding.
func checkPercentiles(t *testing.T, what string, p Percentiles, sorted []int64) {
	t.Helper()
	if p.Count != int64(len(sorted)) {
		t.Errorf("%s count = %d, want %d", what, p.Count, len(sorted))
	}
	exact := func(name string, got, want float64) {
		if got != want {
			t.Errorf("%s %s = %v, want exactly %v", what, name, got, want)
		}
	}
	exact("min", p.Min, float64(sorted[0])/1e6)
	exact("max", p.Max, float64(sorted[len(sorted)-1])/1e6)
	if m := mean(sorted); math.Abs(p.Mean-m) > 1e-9*m {
		t.Errorf("%s mean = %v, want %v", what, p.Mean, m)
	}
	for _, q := range []struct {
		name string
		q    float64
		got  float64
	}{{"p50", .5, p.P50}, {"p90", .9, p.P90}, {"p95", .95, p.P95}, {"p99", .99, p.P99}, {"p999", .999, p.P999}} {
		want := rank(sorted, q.q)
		// The bound the reports state (Summary.Precision) is the one tested.
		if err := math.Abs(q.got-want) / want; err > reportPrecision.QuantileRelativeError {
			t.Errorf("%s %s = %v, want %v within the stated %v (off by %.2f%%)", what, q.name, q.got, want, reportPrecision.QuantileRelativeError, err*100)
		}
	}
}

func thresholdsFor(errorRate float64, p99ms int, _ int) *results.Thresholds {
	return &results.Thresholds{ErrorRate: errorRate, P99: time.Duration(p99ms) * time.Millisecond, StatusCodes: []int{500}}
}
