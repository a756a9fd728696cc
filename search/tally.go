package search

import (
	"math"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/tressi/tressi/results"
)

// Tally counts the judged rows of one probe: those due at or after the
// warmup. The live judge and `tressi report` both feed it rows, so a probe's
// figures are the same whichever computed them.
type Tally struct {
	Warmup int64 // ns after the probe's start; earlier rows are warmup

	Rows      int64 // judged rows, whatever their outcome
	Responses int64 // rows with a complete response (a latency)
	Counted   int64 // rows with an outcome: neither not_sent nor interrupted
	Failed    int64 // counted rows with an error or an unexpected status
	// LastDone is the latest response completion, ns after the start.
	LastDone int64
	// Over counts the responses slower than each latency limit of the
	// thresholds, in limitsOf order.
	Over []int64
	// StatusHits counts responses with a status thresholds.status_codes names.
	StatusHits map[int]int64

	limits []limit
	codes  map[int]bool
	hist   *hdrhistogram.Histogram
}

// limit is one latency threshold: the quantile q (0–100) must stay ≤ max.
type limit struct {
	name string
	q    float64
	max  time.Duration
}

func limitsOf(t results.Thresholds) []limit {
	var out []limit
	for _, l := range []limit{{"p50", 50, t.P50}, {"p90", 90, t.P90}, {"p95", 95, t.P95}, {"p99", 99, t.P99}, {"p999", 99.9, t.P999}} {
		if l.max > 0 {
			out = append(out, l)
		}
	}
	return out
}

// histogramMax is the largest latency the tally holds: an hour, as exec's.
const histogramMax = int64(time.Hour)

// NewTally starts an empty tally for a probe whose warmup lasts warmup.
func NewTally(th results.Thresholds, warmup time.Duration) *Tally {
	t := &Tally{Warmup: int64(warmup), limits: limitsOf(th), codes: map[int]bool{}, StatusHits: map[int]int64{},
		hist: hdrhistogram.New(1, histogramMax, 3)}
	t.Over = make([]int64, len(t.limits))
	for _, c := range th.StatusCodes {
		t.codes[c] = true
	}
	return t
}

// Judged reports whether a row counts toward the verdict.
func (t *Tally) Judged(row *results.Row) bool { return row.Scheduled >= t.Warmup }

// Add counts one row; ok says it got a response with an expected status.
// Warmup rows are ignored.
func (t *Tally) Add(row *results.Row, ok bool) {
	if !t.Judged(row) {
		return
	}
	t.Rows++
	if row.Error == results.NotSent || row.Error == results.Interrupted {
		return
	}
	t.Counted++
	if !ok {
		t.Failed++
	}
	if row.Latency < 0 {
		return
	}
	t.Responses++
	_ = t.hist.RecordValue(min(max(row.Latency, 1), histogramMax))
	t.LastDone = max(t.LastDone, row.Scheduled+row.Latency)
	for i, l := range t.limits {
		if row.Latency > int64(l.max) {
			t.Over[i]++
		}
	}
	if t.codes[int(row.Status)] {
		t.StatusHits[int(row.Status)]++
	}
}

// Quantile is the corrected latency at q (0–100) over the judged
// responses; -1 without any.
func (t *Tally) Quantile(q float64) time.Duration {
	if t.hist.TotalCount() == 0 {
		return -1
	}
	return time.Duration(t.hist.ValueAtQuantile(q))
}

// Achieved is the judged responses per second: from the end of the warmup
// to the last judged completion.
func (t *Tally) Achieved() float64 {
	span := t.LastDone - t.Warmup
	if t.Responses == 0 || span <= 0 {
		return 0
	}
	return float64(t.Responses) / (float64(span) / 1e9)
}

// ErrorRate is failed ÷ counted; 0 without outcomes.
func (t *Tally) ErrorRate() float64 {
	if t.Counted == 0 {
		return 0
	}
	return float64(t.Failed) / float64(t.Counted)
}

// wilsonLower is the lower end of the Wilson score interval for k
// successes in n trials at z standard deviations: the smallest true
// fraction the sample is still consistent with.
func wilsonLower(k, n int64, z float64) float64 {
	if n <= 0 {
		return 0
	}
	p := float64(k) / float64(n)
	nf := float64(n)
	z2 := z * z
	centre := p + z2/(2*nf)
	spread := z * math.Sqrt(p*(1-p)/nf+z2/(4*nf*nf))
	return (centre - spread) / (1 + z2/nf)
}
