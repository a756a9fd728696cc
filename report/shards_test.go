package report

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tressi/tressi/report/synth"
	"github.com/tressi/tressi/results"
)

// comparable drops what legitimately differs between a sharded and an
// unsharded report of the same rows: which files they came from.
func comparable(t *testing.T, r *Report) string {
	t.Helper()
	s := r.Summary
	s.Shards, s.Warnings, s.Run = nil, nil, RunInfo{}
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestShardsMergeToTheUnshardedReport(t *testing.T) {
	spec := synth.Spec{Rows: 40_000, Seed: 9, Rate: 4000}
	whole, err := Build([]string{writeRun(t, spec)}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var dirs []string
	for i := range 2 {
		s := spec
		s.Shard = results.Shard{Index: i, Count: 2}
		dirs = append(dirs, writeRun(t, s))
	}
	merged, err := Build(dirs, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(merged.Warnings) > 0 {
		t.Errorf("complete shards gave warnings: %v", merged.Warnings)
	}
	if got, want := comparable(t, merged), comparable(t, whole); got != want {
		t.Errorf("merged shards differ from the unsharded run:\n got %.400s\nwant %.400s", got, want)
	}
	if len(merged.Shards) != 2 || merged.Shards[0].Rows+merged.Shards[1].Rows != 40_000 {
		t.Errorf("shards = %+v", merged.Shards)
	}
}

func TestSameShardTwiceIsAnError(t *testing.T) {
	s := synth.Spec{Rows: 10_000, Seed: 1, Rate: 1000, Shard: results.Shard{Index: 0, Count: 2}}
	dir := writeRun(t, s)
	_, err := Build([]string{dir, dir}, Options{})
	if err == nil || !strings.Contains(err.Error(), "both hold 5000 slots (first 0): did you pass the same shard twice?") {
		t.Fatalf("err = %v, want an overlap naming 5000 slots", err)
	}
}

func TestDifferentSchedulesAreAnError(t *testing.T) {
	a := writeRun(t, synth.Spec{Rows: 1000, Seed: 1, Rate: 1000, Hash: "aaa", Shard: results.Shard{Index: 0, Count: 2}})
	b := writeRun(t, synth.Spec{Rows: 1000, Seed: 1, Rate: 1000, Hash: "bbb", Shard: results.Shard{Index: 1, Count: 2}})
	_, err := Build([]string{a, b}, Options{})
	if err == nil || !strings.Contains(err.Error(), "different schedules") || !strings.Contains(err.Error(), `"bbb"`) {
		t.Fatalf("err = %v, want a schedule hash mismatch naming both hashes", err)
	}
}

func TestMissingShardIsAWarning(t *testing.T) {
	s := synth.Spec{Rows: 9000, Seed: 1, Rate: 1000, Shard: results.Shard{Index: 1, Count: 3}}
	rep, err := Build([]string{writeRun(t, s)}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	w := strings.Join(rep.Warnings, "\n")
	if !strings.Contains(w, "shards 0/3, 2/3 of this run were not passed") || !strings.Contains(w, "5999 of slots 0..8998 are in no input") {
		t.Errorf("warnings = %q", w)
	}
}

func TestTruncatedFileGivesAPartialReport(t *testing.T) {
	dir := writeRun(t, synth.Spec{Rows: 200_000, Seed: 2, Rate: 10000})
	path := filepath.Join(dir, ResultsFile)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data[:len(data)*2/3], 0o644); err != nil { // a writer killed mid-batch
		t.Fatal(err)
	}
	rep, err := Build([]string{dir}, Options{})
	if err != nil {
		t.Fatalf("a truncated file must still give a report: %v", err)
	}
	if rep.Requests == 0 || rep.Requests >= 200_000 || rep.Requests%results.BatchRows != 0 {
		t.Errorf("requests = %d, want whole batches short of 200000", rep.Requests)
	}
	if len(rep.Warnings) == 0 || !strings.Contains(rep.Warnings[0], "cut short") || !rep.Shards[0].Truncated {
		t.Errorf("warnings = %q, want one about the cut", rep.Warnings)
	}
}

func TestMissingInputSaysWhatToPass(t *testing.T) {
	_, err := Build([]string{filepath.Join(t.TempDir(), "nope")}, Options{})
	if err == nil || !strings.Contains(err.Error(), "does not exist: pass a run directory") {
		t.Fatalf("err = %v", err)
	}
	_, err = Build([]string{t.TempDir()}, Options{})
	if err == nil || !strings.Contains(err.Error(), "without results.arrow") {
		t.Fatalf("err = %v", err)
	}
}
