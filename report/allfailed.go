package report

import (
	"fmt"
	"slices"

	"github.com/tressi/tressi/results"
)

// AllFailedName is the check every run gets (results.AllFailedName).
const AllFailedName = results.AllFailedName

// AllRequestsFailed reports whether the run failed the all_failed check.
func (s *Summary) AllRequestsFailed() bool {
	return slices.ContainsFunc(s.Thresholds, func(t ThresholdResult) bool { return t.Name == AllFailedName && !t.OK })
}

// AllFailedOutcome is the same check on a run's counts alone, for a caller
// that has not read the results back (apply --quiet).
func AllFailedOutcome(th *results.Thresholds, requests, ok int64) bool {
	return requests > 0 && ok == 0 && (th == nil || !th.AllowAllFailed)
}

// topCounts names what the requests got instead, most frequent first
// (results.TopCounts, which the executor's verdict uses too).
func topCounts(s *Summary) string {
	statuses := map[int]int64{}
	for _, c := range s.StatusDistribution() {
		statuses[c.Status] = c.Count
	}
	return results.TopCounts(s.ErrorKinds, statuses)
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

// allFailed returns the all_failed check of s (results.Evaluate's) when it
// fails, unless th allows it.
func allFailed(th *results.Thresholds, s *Summary) (ThresholdResult, bool) {
	only := &results.Thresholds{AllowAllFailed: th != nil && th.AllowAllFailed}
	for _, r := range EvaluateThresholds(only, s, nil) {
		if r.Name == AllFailedName {
			return r, true
		}
	}
	return ThresholdResult{}, false
}
