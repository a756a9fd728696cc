package cli

import (
	"github.com/tressi/tressi/report"
	"github.com/tressi/tressi/results"
)

// planMatchesResults says whether the run directory's plan.tplan is the
// schedule its results were recorded from (true when either is missing or
// unreadable: the report says what is wrong with them).
func planMatchesResults(dir string) bool {
	in, err := report.ResolveInput(dir)
	if err != nil {
		return true
	}
	r, err := results.Open(in.Results)
	if err != nil {
		return true
	}
	defer r.Close()
	_, err = report.RunPlan(in, r.Meta)
	return err == nil
}
