package results

// CheckTally is one check's count over a run: how many responses it ran
// on and how many of them it failed. meta.json holds them ("checks"), the
// report shows them per endpoint and per check, and check_rate judges
// their sum.
type CheckTally struct {
	Endpoint string `json:"endpoint"`
	Check    string `json:"check"`
	Run      int64  `json:"run"`
	Failed   int64  `json:"failed"`
}

// CheckTotals sums tallies: the checks run and those that failed.
func CheckTotals(ts []CheckTally) (run, failed int64) {
	for _, t := range ts {
		run += t.Run
		failed += t.Failed
	}
	return run, failed
}
