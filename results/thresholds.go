package results

import (
	"fmt"
	"strings"
	"time"
)

// Thresholds are a plan's pass/fail criteria as a run is judged by them:
// the results' contract, so the engines and the report read them without
// knowing the plan language. The JSON names are those a .tplan header has
// always held.
type Thresholds struct {
	ErrorRate   float64 `json:"ErrorRate"`   // abort when the windowed error rate exceeds this; 0: unset
	ErrorCount  int64   `json:"ErrorCount"`  // abort when errors exceed this; 0: unset
	StatusCodes []int   `json:"StatusCodes"` // abort on the first of these
	// Latency limits on corrected latency, checked at the end; 0: unset.
	P50  time.Duration `json:"P50"`
	P90  time.Duration `json:"P90"`
	P95  time.Duration `json:"P95"`
	P99  time.Duration `json:"P99"`
	P999 time.Duration `json:"P999"`
	// Abort stops the run early when a live threshold fails.
	Abort bool `json:"Abort"`
}

// Any reports whether th sets a threshold Evaluate would check.
func (th *Thresholds) Any() bool {
	return th != nil && len(Evaluate(th, Measures{Latency: NewLatencyHistogram()})) > 0
}

// ThresholdResult is one threshold checked against the whole run.
type ThresholdResult struct {
	Name   string  `json:"name"`
	OK     bool    `json:"ok"`
	Actual float64 `json:"actual"`
	Limit  float64 `json:"limit"`
	Unit   string  `json:"unit,omitempty"`
	Detail string  `json:"detail,omitempty"`
}

// Measures are what a verdict reads of a whole run.
type Measures struct {
	Requests int64 // rows
	OK       int64 // responses with an expected status and no error
	// Status counts the rows with a status code.
	Status func(code int) int64
	// Latency holds the corrected latency of every response.
	Latency *LatencyHistogram
}

// Evaluate checks th against a whole run: the verdict. The executor gives
// it for meta.json and the exit code, the report for its table; both
// measure the same rows the same way, so they agree.
func Evaluate(th *Thresholds, m Measures) []ThresholdResult {
	out := []ThresholdResult{}
	if th == nil {
		return out
	}
	errors := m.Requests - m.OK
	rate := 0.0
	if m.Requests > 0 {
		rate = float64(errors) / float64(m.Requests)
	}
	if th.ErrorRate > 0 {
		out = append(out, ThresholdResult{Name: "error_rate", OK: rate <= th.ErrorRate, Actual: rate, Limit: th.ErrorRate})
	}
	if th.ErrorCount > 0 {
		out = append(out, ThresholdResult{Name: "error_count", OK: errors <= th.ErrorCount, Actual: float64(errors), Limit: float64(th.ErrorCount)})
	}
	if len(th.StatusCodes) > 0 {
		var seen int64
		var detail []string
		for _, code := range th.StatusCodes {
			if n := statusCount(m, code); n > 0 {
				seen += n
				detail = append(detail, fmt.Sprintf("%d×%d", n, code))
			}
		}
		out = append(out, ThresholdResult{Name: "status_codes", OK: seen == 0, Actual: float64(seen), Detail: strings.Join(detail, " ")})
	}
	p := Percentiles{}
	if m.Latency != nil {
		p = m.Latency.Percentiles()
	}
	for _, l := range []struct {
		name  string
		limit time.Duration
		got   float64
	}{
		{"p50", th.P50, p.P50}, {"p90", th.P90, p.P90}, {"p95", th.P95, p.P95},
		{"p99", th.P99, p.P99}, {"p999", th.P999, p.P999},
	} {
		if l.limit <= 0 {
			continue
		}
		limit := float64(l.limit) / 1e6
		r := ThresholdResult{Name: l.name, OK: l.got <= limit, Actual: l.got, Limit: limit, Unit: "ms"}
		if p.Count == 0 {
			r.OK, r.Detail = false, "no responses to measure"
		}
		out = append(out, r)
	}
	return out
}

func statusCount(m Measures, code int) int64 {
	if m.Status == nil {
		return 0
	}
	return m.Status(code)
}

// Failures lists the failed thresholds of a verdict as "name: detail", the
// way meta.json's threshold_failures holds them.
func Failures(rs []ThresholdResult) []string {
	var out []string
	for _, r := range rs {
		if r.OK {
			continue
		}
		detail := r.Detail
		switch {
		case detail != "":
		case r.Unit != "":
			detail = fmt.Sprintf("%.4g %s > %.4g %s", r.Actual, r.Unit, r.Limit, r.Unit)
		default:
			detail = fmt.Sprintf("%.4g > %.4g", r.Actual, r.Limit)
		}
		out = append(out, r.Name+": "+detail)
	}
	return out
}
