package exec

import (
	"strings"
	"time"

	"github.com/tressi/tressi/results"
)

// fillOutcome fills out from the finished run: the recorder's totals, and
// the run's one verdict on its thresholds, which meta.json, the outcome and
// so the CLI's exit code all take from here.
func (ex *executor) fillOutcome(out *Outcome) {
	r := ex.rec
	t := &r.totals
	out.Requests, out.Sent, out.OK = t.Requests, t.Sent, t.OK
	out.ErrorKinds, out.Status = t.errorKinds(), t.statuses()
	out.Interrupted, out.EarlyExit = ex.interrupted.Load(), ex.earlyExit.Load()
	out.Thresholds = ex.verdict()
	out.ThresholdFailures = results.Failures(out.Thresholds)
	if p := r.latency.Percentiles(); p.Count > 0 {
		out.Latency = map[string]time.Duration{
			"p50": msDuration(p.P50), "p90": msDuration(p.P90), "p95": msDuration(p.P95),
			"p99": msDuration(p.P99), "p999": msDuration(p.P999),
		}
	}
}

// verdict judges the whole run by the plan's thresholds with
// results.Evaluate, as the report does; a run a live threshold stopped
// also fails "early_exit", naming what stopped it.
func (ex *executor) verdict() []results.ThresholdResult {
	r := ex.rec
	t := &r.totals
	v := results.Evaluate(&ex.s.Thresholds, results.Measures{
		Requests: t.Requests, OK: t.OK, Latency: r.latency,
		CutOff: t.Errors[results.NotSent] + t.Errors[results.Interrupted],
		Status: func(code int) int64 {
			if code >= 0 && code < len(t.Status) {
				return t.Status[code]
			}
			return t.bigStatus[uint16(code)]
		},
		Describe: func() string {
			statuses := map[int]int64{}
			for code, n := range t.statuses() {
				statuses[int(code)] = n
			}
			return results.TopCounts(t.errorKinds(), statuses)
		},
	})
	if ex.earlyExit.Load() {
		v = append(v, results.ThresholdResult{Name: "early_exit", OK: false, Detail: strings.Join(ex.th.list(), "; ")})
	}
	return v
}

func msDuration(ms float64) time.Duration { return time.Duration(ms * 1e6) }
