package report

import (
	"encoding/json"
	"fmt"

	"github.com/tressi/tressi/results"
)

// checkTallies reads meta.json's "checks": each check block's runs and
// failures, per endpoint (the results hold only check_failed rows, not
// which check failed nor how many held). nil without them.
func checkTallies(env map[string]any) []results.CheckTally {
	raw, ok := env["checks"]
	if !ok {
		return nil
	}
	b, err := json.Marshal(raw)
	if err != nil {
		return nil
	}
	var ts []results.CheckTally
	if json.Unmarshal(b, &ts) != nil {
		return nil
	}
	return ts
}

// checksSection counts the checks per endpoint and check, in the plan's order.
func checksSection(s *Summary) section {
	sec := section{Title: "Checks", Header: []string{"endpoint", "check", "run", "failed", "held"}, Align: "llrrr"}
	for _, t := range s.Checks {
		sec.Rows = append(sec.Rows, []string{t.Endpoint, t.Check, count(t.Run), count(t.Failed), percent(share(t.Run-t.Failed, t.Run))})
	}
	run, failed := results.CheckTotals(s.Checks)
	sec.Notes = []string{fmt.Sprintf("%s of %s checks held (check_rate %.4g); a response that failed any is a check_failed row",
		count(run-failed), count(run), share(run-failed, run))}
	return sec
}
