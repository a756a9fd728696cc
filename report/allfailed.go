package report

import (
	"fmt"
	"slices"
	"strings"

	"github.com/tressi/tressi/plan"
)

// AllFailedName is the check every run gets, with thresholds or without:
// a run in which no request succeeded measured nothing about the service
// (a wrong URL, a server that is down), and exiting 0 on it let CI pass.
// A plan that expects it sets `allow_all_failed = true` in thresholds.
const AllFailedName = "all_failed"

// allFailed returns the failed check when s has requests and none ok,
// unless th allows it.
func allFailed(th *plan.Thresholds, s *Summary) (ThresholdResult, bool) {
	if s.Requests == 0 || s.OK > 0 || th != nil && th.AllowAllFailed {
		return ThresholdResult{}, false
	}
	return ThresholdResult{Name: AllFailedName, OK: false, Actual: float64(s.Requests), Limit: 0,
		Detail: "every request failed: " + topCounts(s)}, true
}

// AllRequestsFailed reports whether the run failed the all_failed check.
func (s *Summary) AllRequestsFailed() bool {
	return slices.ContainsFunc(s.Thresholds, func(t ThresholdResult) bool { return t.Name == AllFailedName && !t.OK })
}

// AllFailedOutcome is the same check on a run's counts alone, for a caller
// that has not read the results back (apply --quiet).
func AllFailedOutcome(th *plan.Thresholds, requests, ok int64) bool {
	return requests > 0 && ok == 0 && (th == nil || !th.AllowAllFailed)
}

// topCounts names what the requests got instead, most frequent first:
// "connect_refused 42, not_sent 778" or "status 404 ×100".
func topCounts(s *Summary) string {
	type kc struct {
		k string
		n int64
	}
	var all []kc
	for k, n := range s.ErrorKinds {
		all = append(all, kc{k, n})
	}
	for _, c := range s.StatusDistribution() {
		if c.Status != 0 {
			all = append(all, kc{fmt.Sprintf("status %d", c.Status), c.Count})
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
		parts = append(parts, fmt.Sprintf("%s %s", c.k, count(c.n)))
	}
	return strings.Join(parts, ", ")
}

// allFailedSection is the report's first section when every request
// failed, so nobody reads the tables below as a measurement.
func allFailedSection(s *Summary) section {
	return section{
		Title: fmt.Sprintf("FAILED: NONE OF THE %s REQUESTS SUCCEEDED", count(s.Requests)),
		Notes: []string{
			"what they got: " + topCounts(s),
			"nothing here measures the service: check that it is up at the target's url and answers the expected statuses",
			"a plan that expects this sets allow_all_failed = true in its thresholds block",
		},
	}
}
