package report

import (
	"fmt"
	"strconv"
	"time"

	"github.com/tressi/tressi/plan"
)

// ThresholdResult is one threshold of the plan checked against the whole run.
type ThresholdResult struct {
	Name   string  `json:"name"`
	OK     bool    `json:"ok"`
	Actual float64 `json:"actual"`
	Limit  float64 `json:"limit"`
	Unit   string  `json:"unit,omitempty"`
	Detail string  `json:"detail,omitempty"`
}

// EvaluateThresholds checks th against s at the end of a run. The executor
// also checks them live over a window; this is the end-of-run verdict.
func EvaluateThresholds(th *plan.Thresholds, s *Summary) []ThresholdResult {
	out := []ThresholdResult{}
	if th == nil {
		return out
	}
	if th.ErrorRate > 0 {
		out = append(out, ThresholdResult{Name: "error_rate", OK: s.ErrorRate <= th.ErrorRate, Actual: s.ErrorRate, Limit: th.ErrorRate})
	}
	if th.ErrorCount > 0 {
		out = append(out, ThresholdResult{Name: "error_count", OK: s.Errors <= th.ErrorCount, Actual: float64(s.Errors), Limit: float64(th.ErrorCount)})
	}
	if len(th.StatusCodes) > 0 {
		var seen int64
		var detail string
		for _, code := range th.StatusCodes {
			if n := s.Status[strconv.Itoa(code)]; n > 0 {
				seen += n
				detail += fmt.Sprintf("%d×%d ", n, code)
			}
		}
		out = append(out, ThresholdResult{Name: "status_codes", OK: seen == 0, Actual: float64(seen), Detail: trimSpace(detail)})
	}
	for _, l := range []struct {
		name  string
		limit time.Duration
		got   float64
	}{
		{"p50", th.P50, s.Latency.P50}, {"p90", th.P90, s.Latency.P90}, {"p95", th.P95, s.Latency.P95},
		{"p99", th.P99, s.Latency.P99}, {"p999", th.P999, s.Latency.P999},
	} {
		if l.limit > 0 {
			limit := float64(l.limit) / 1e6
			r := ThresholdResult{Name: l.name, OK: l.got <= limit, Actual: l.got, Limit: limit, Unit: "ms"}
			if s.Latency.Count == 0 {
				// No latency to judge is no evidence the limit held.
				r.OK, r.Detail = false, "no response"
			}
			out = append(out, r)
		}
	}
	return out
}

// HasThresholds reports whether th sets any threshold: the ones
// EvaluateThresholds would check.
func HasThresholds(th *plan.Thresholds) bool {
	return len(EvaluateThresholds(th, &Summary{})) > 0
}

func trimSpace(s string) string {
	for len(s) > 0 && s[len(s)-1] == ' ' {
		s = s[:len(s)-1]
	}
	return s
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
