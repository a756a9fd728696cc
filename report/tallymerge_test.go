package report

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/tressi/tressi/report/synth"
	"github.com/tressi/tressi/results"
)

// Rows tallied by several workers and merged say what one pass over them
// says, to the byte of the JSON report: sessions split across batches
// (and so across workers), shards, errors, statuses, the per-second series.
func TestTalliesOfWorkersMergeToOnePass(t *testing.T) {
	dir := t.TempDir()
	var shards []string
	for i := range 2 {
		p := filepath.Join(dir, fmt.Sprint("shard", i))
		spec := synth.Spec{Rows: 40_000, Seed: 9, Rate: 2_000, Shard: results.Shard{Index: i, Count: 2}, Hash: "h", Sessions: true, KnownSlots: true, BatchRows: 997}
		if _, err := synth.WriteRun(p, spec); err != nil {
			t.Fatal(err)
		}
		shards = append(shards, p)
	}
	report := func(workers int) []byte {
		t.Helper()
		defer func(f func() int) { tallyWorkers = f }(tallyWorkers)
		tallyWorkers = func() int { return workers }
		rep, err := Build(shards, Options{})
		if err != nil {
			t.Fatal(err)
		}
		out, err := json.Marshal(rep)
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	one := report(1)
	var s Summary
	if err := json.Unmarshal(one, &s); err != nil || len(s.Scenarios) != 2 || s.Scenarios[0].Sessions == 0 || len(s.Series) < 10 {
		t.Fatalf("the run should have sessions of two scenarios and a series: %v, %+v", err, s.Scenarios)
	}
	for _, workers := range []int{2, 3, 8} {
		if got := report(workers); string(got) != string(one) {
			t.Errorf("%d workers: the report differs from one pass's:\n%s\nwant\n%s", workers, got, one)
		}
	}
}
