package search

import (
	"fmt"
	"path/filepath"

	"github.com/tressi/tressi/results"
)

// resultsFile is exec.ResultsFile; named here so reading a search needs no
// executor.
const resultsFile = "results.arrow"

// TallyProbe reads a probe's rows back from dir (a probe's run directory)
// and tallies them as the live judge did: the warmup comes from the rows'
// own metadata (results.KeyProbe). It is how a report recomputes a probe's
// figures from the raw rows.
func TallyProbe(dir string, th results.Thresholds) (*Tally, ProbeMeta, error) {
	path := filepath.Join(dir, resultsFile)
	r, err := results.Open(path)
	if err != nil {
		return nil, ProbeMeta{}, err
	}
	defer r.Close()
	if r.Meta.Probe == "" {
		return nil, ProbeMeta{}, fmt.Errorf("%s has no %s metadata: it is not a search probe's results", path, results.KeyProbe)
	}
	pm, err := ParseProbeMeta(r.Meta.Probe)
	if err != nil {
		return nil, pm, fmt.Errorf("%s: %w", path, err)
	}
	t := NewTally(th, 0)
	t.Warmup = pm.WarmupNs
	var expect [][]int
	for {
		b, ok := r.Next()
		if !ok {
			break
		}
		expect = expect[:0]
		for _, name := range b.EndpointNames {
			expect = append(expect, r.Meta.Expect[name])
		}
		for i := 0; i < b.Len; i++ {
			kind, known := results.ParseErrorKind(b.ErrorNames[b.Error[i]])
			if !known {
				kind = results.Protocol // a word this build does not know is still an error
			}
			row := results.Row{Slot: b.Slot[i], Scheduled: b.Scheduled[i], Sent: b.Sent[i], Latency: b.Latency[i],
				Service: b.Service[i], Status: b.Status[i], Error: kind}
			ok := row.Latency >= 0 && kind == results.None && results.ExpectsStatus(expect[b.Endpoint[i]], int(row.Status))
			t.Add(&row, ok)
		}
	}
	if err := r.Err(); err != nil {
		return nil, pm, fmt.Errorf("%s: %w", path, err)
	}
	return t, pm, nil
}
