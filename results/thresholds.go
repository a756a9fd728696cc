package results

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Thresholds are a plan's pass/fail criteria as a run is judged by them:
// the results' contract, so the engines and the report read them without
// knowing the plan language. (A .tplan stores them through its own wire
// struct, compile/tplanwire.go.)
type Thresholds struct {
	ErrorRate   float64 // abort when the windowed error rate exceeds this; 0: unset
	ErrorCount  int64   // abort when errors exceed this; 0: unset
	StatusCodes []int   // abort on the first of these
	// Latency limits on corrected latency, checked at the end; 0: unset.
	P50, P90, P95, P99, P999 time.Duration
	Max                      time.Duration // the largest corrected latency; 0: unset
	// LiveWindow, when set, judges the latency limits live too, over the
	// responses of the last LiveWindow, from LiveDelay after the start and
	// once the window holds LiveMinCount responses.
	LiveWindow, LiveDelay time.Duration
	LiveMinCount          int64
	// Abort stops the run early when a live threshold fails.
	Abort bool
	// AllowAllFailed: a run in which no request succeeded passes (see
	// AllFailedName).
	AllowAllFailed bool
	// CheckRate is the least fraction of checks (check blocks, each run
	// on each response) that must hold, as k6's checks rate; judged at
	// the end; 0: unset.
	CheckRate float64
}

// AllFailedName is the check every run gets, with thresholds or without:
// a run in which no request succeeded measured nothing about the service
// (a wrong URL, a server that is down), and exiting 0 on it let CI pass.
// A plan that expects it sets `allow_all_failed = true` in thresholds.
const AllFailedName = "all_failed"

// Any reports whether th sets a threshold Evaluate would check (beyond
// all_failed, which every run gets).
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
	// CutOff counts the rows a stop cut off (not_sent, interrupted): no
	// verdict on the server, so neither ok nor errors.
	CutOff int64
	// Status counts the rows with a status code.
	Status func(code int) int64
	// Latency holds the corrected latency of every response.
	Latency *LatencyHistogram
	// Describe names what the requests got instead of success, for the
	// all_failed check's detail ("connect_refused 42, status 404 ×3").
	Describe func() string
	// ChecksRun and ChecksFailed sum the run's check tallies (CheckTally).
	ChecksRun, ChecksFailed int64
}

// Evaluate checks th against a whole run: the verdict. The executor gives
// it for meta.json and the exit code, the report for its table; both
// measure the same rows the same way, so they agree.
func Evaluate(th *Thresholds, m Measures) []ThresholdResult {
	out := []ThresholdResult{}
	if th == nil {
		th = &Thresholds{}
	}
	c := Counts{Requests: m.Requests, OK: m.OK, CutOff: m.CutOff} // figures.go
	errors, rate := c.Errors(), c.ErrorRate()
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
	if th.CheckRate > 0 {
		r := ThresholdResult{Name: "check_rate", Limit: th.CheckRate}
		if m.ChecksRun > 0 {
			r.Actual = float64(m.ChecksRun-m.ChecksFailed) / float64(m.ChecksRun)
			r.OK = r.Actual >= th.CheckRate
			if !r.OK {
				r.Detail = fmt.Sprintf("%.4g < %.4g: %d of %d checks failed", r.Actual, r.Limit, m.ChecksFailed, m.ChecksRun)
			}
		} else {
			r.Detail = "no check ran" // no evidence the checks held
		}
		out = append(out, r)
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
		{"p99", th.P99, p.P99}, {"p999", th.P999, p.P999}, {"max", th.Max, p.Max},
	} {
		if l.limit <= 0 {
			continue
		}
		limit := float64(l.limit) / 1e6
		r := ThresholdResult{Name: l.name, OK: l.got <= limit, Actual: l.got, Limit: limit, Unit: "ms"}
		if p.Count == 0 {
			r.OK, r.Detail = false, "no response" // no latency to judge is no evidence the limit held
		}
		out = append(out, r)
	}
	if c.Judged() > 0 && m.OK == 0 && !th.AllowAllFailed {
		r := ThresholdResult{Name: AllFailedName, OK: false, Actual: float64(m.Requests), Detail: "every request failed"}
		if m.Describe != nil {
			r.Detail += ": " + m.Describe()
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

// TopCounts names what requests got, most frequent first: error kinds by
// word and statuses other than 0 as "status N" ("connect_refused 42,
// not_sent 778" or "status 404 ×100" style counts, thousands separated):
// the all_failed check's detail, the same from the executor and the report.
func TopCounts(errorKinds map[string]int64, statuses map[int]int64) string {
	type kc struct {
		k string
		n int64
	}
	var all []kc
	for k, n := range errorKinds {
		if k != "" && n > 0 {
			all = append(all, kc{k, n})
		}
	}
	for st, n := range statuses {
		if st != 0 && n > 0 {
			all = append(all, kc{fmt.Sprintf("status %d", st), n})
		}
	}
	slices.SortFunc(all, func(a, b kc) int {
		if a.n != b.n {
			return int(b.n - a.n)
		}
		return strings.Compare(a.k, b.k)
	})
	parts := make([]string, 0, len(all))
	for _, c := range all {
		parts = append(parts, c.k+" "+thousands(c.n))
	}
	return strings.Join(parts, ", ")
}

// thousands writes n with a comma every three digits.
func thousands(n int64) string {
	s := strconv.FormatInt(n, 10)
	neg := strings.HasPrefix(s, "-")
	if neg {
		s = s[1:]
	}
	var b strings.Builder
	if neg {
		b.WriteByte('-')
	}
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}
