package cli

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tressi/tressi/report/synth"
	"github.com/tressi/tressi/results"
)

// TestDiffTakesShards: each side of `tressi diff` may be a run's shards,
// comma-separated or as the directory holding them, and diffs as the
// whole runs do; a shard given twice is refused with exit 1.
func TestDiffTakesShards(t *testing.T) {
	dir := t.TempDir()
	var shards [2][]string
	for s, seed := range []uint64{1, 2} {
		spec := synth.Spec{Rows: 4000, Seed: seed, Rate: 1000, Hash: "h", BatchRows: 500}
		if _, err := synth.WriteRun(filepath.Join(dir, fmt.Sprint("whole", s)), spec); err != nil {
			t.Fatal(err)
		}
		for i := range 2 {
			spec.Shard = results.Shard{Index: i, Count: 2}
			p := filepath.Join(dir, fmt.Sprint("split", s), fmt.Sprint("shard-", i))
			if _, err := synth.WriteRun(p, spec); err != nil {
				t.Fatal(err)
			}
			shards[s] = append(shards[s], p)
		}
	}
	failed := func(args ...string) int64 {
		t.Helper()
		code, out, errs := runCLI(append([]string{"diff", "--format", "json"}, args...)...)
		if code != ExitOK {
			t.Fatalf("diff %v: exit %d: %s", args, code, errs)
		}
		var d struct {
			NewlyFailed int64 `json:"newly_failed_slots"`
			A           struct {
				Rows int64 `json:"rows"`
			} `json:"a"`
		}
		if err := json.Unmarshal([]byte(out), &d); err != nil {
			t.Fatal(err)
		}
		if d.A.Rows != 4000 {
			t.Fatalf("diff %v: side A has %d rows, want 4000", args, d.A.Rows)
		}
		return d.NewlyFailed
	}
	want := failed(filepath.Join(dir, "whole0"), filepath.Join(dir, "whole1"))
	if want == 0 {
		t.Fatal("the runs differ in no slot")
	}
	if got := failed(strings.Join(shards[0], ","), strings.Join(shards[1], ",")); got != want {
		t.Fatalf("comma-separated shards: %d newly failed slots, whole runs %d", got, want)
	}
	if got := failed(filepath.Join(dir, "split0"), filepath.Join(dir, "split1")); got != want {
		t.Fatalf("shard directories: %d newly failed slots, whole runs %d", got, want)
	}
	code, _, errs := runCLI("diff", shards[0][0]+","+shards[0][0], filepath.Join(dir, "split1"))
	if code != ExitInvalid || !strings.Contains(errs, "pass each shard once") {
		t.Fatalf("a shard twice: exit %d: %s", code, errs)
	}
}
