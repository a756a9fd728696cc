package exec

import (
	"strings"
	"time"

	"github.com/tressi/tressi/exec/internal/run"
	"github.com/tressi/tressi/results"
)

// fillOutcome fills out from the finished run: the recorder's totals, and
// the run's one verdict on its thresholds, which meta.json, the outcome and
// so the CLI's exit code all take from here.
func fillOutcome(ex *run.Executor, out *Outcome) {
	r := ex.Rec
	t := &r.Totals
	out.Requests, out.Sent, out.OK = t.Requests, t.Sent, t.OK
	out.ErrorKinds, out.Status = t.ErrorKinds(), t.Statuses()
	out.Interrupted, out.EarlyExit = ex.Interrupted.Load(), ex.EarlyExit.Load()
	out.Thresholds = verdict(ex)
	out.ThresholdFailures = results.Failures(out.Thresholds)
	if p := r.Latency.Percentiles(); p.Count > 0 {
		out.Latency = map[string]time.Duration{
			"p50": msDuration(p.P50), "p90": msDuration(p.P90), "p95": msDuration(p.P95),
			"p99": msDuration(p.P99), "p999": msDuration(p.P999),
		}
	}
}

// verdict judges the whole run by the plan's thresholds with
// results.Evaluate, as the report does; a run a live threshold stopped
// also fails "early_exit", naming what stopped it.
func verdict(ex *run.Executor) []results.ThresholdResult {
	r := ex.Rec
	t := &r.Totals
	checksRun, checksFailed := results.CheckTotals(checkTallies(ex))
	v := results.Evaluate(&ex.S.Thresholds, results.Measures{
		ChecksRun: checksRun, ChecksFailed: checksFailed,
		Requests: t.Requests, OK: t.OK, Latency: r.Latency,
		CutOff: t.Errors[results.NotSent] + t.Errors[results.Interrupted],
		Status: func(code int) int64 {
			if code >= 0 && code < len(t.Status) {
				return t.Status[code]
			}
			return t.BigStatus[uint16(code)]
		},
		Describe: func() string {
			statuses := map[int]int64{}
			for code, n := range t.Statuses() {
				statuses[int(code)] = n
			}
			return results.TopCounts(t.ErrorKinds(), statuses)
		},
	})
	if ex.EarlyExit.Load() {
		v = append(v, results.ThresholdResult{Name: "early_exit", OK: false, Detail: strings.Join(ex.Th.List(), "; ")})
	}
	return v
}

func msDuration(ms float64) time.Duration { return time.Duration(ms * 1e6) }

// checkTallies are the run's check counts, per request and check in the
// plan's order (requests of one endpoint name count together).
func checkTallies(ex *run.Executor) []results.CheckTally {
	var out []results.CheckTally
	at := map[[2]string]int{}
	for i := range ex.Reqs {
		pr := &ex.Reqs[i]
		for c := range pr.Checked {
			key := [2]string{pr.Spec.Name, pr.Spec.Checks[c].Name}
			j, seen := at[key]
			if !seen {
				j = len(out)
				at[key] = j
				out = append(out, results.CheckTally{Endpoint: key[0], Check: key[1]})
			}
			out[j].Run += pr.Checked[c].Run.Load()
			out[j].Failed += pr.Checked[c].Failed.Load()
		}
	}
	return out
}
