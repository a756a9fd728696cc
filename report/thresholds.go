package report

import (
	"strconv"

	"github.com/tressi/tressi/results"
)

// ThresholdResult is one threshold of the plan checked against the whole run.
type ThresholdResult = results.ThresholdResult

// EvaluateThresholds checks th against s at the end of a run with the
// verdict the executor gives the run itself (results.Evaluate).
func EvaluateThresholds(th *results.Thresholds, s *Summary, latency *results.LatencyHistogram) []ThresholdResult {
	checksRun, checksFailed := results.CheckTotals(s.Checks)
	return results.Evaluate(th, results.Measures{
		ChecksRun: checksRun, ChecksFailed: checksFailed,
		Requests: s.Requests, OK: s.OK, CutOff: s.NotSent + s.Interrupted, Latency: latency,
		Status:   func(code int) int64 { return s.Status[strconv.Itoa(code)] },
		Describe: func() string { return topCounts(s) },
	})
}

// ThresholdsPassed reports whether every threshold held.
func (s *Summary) ThresholdsPassed() bool {
	for _, t := range s.Thresholds {
		if !t.OK {
			return false
		}
	}
	return true
}
