package report

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tressi/tressi/report/synth"
	"github.com/tressi/tressi/results"
)

// TestDiffOfShardsIsTheDiffOfTheRuns: two runs each split into three
// shards diff exactly as the same runs written whole, whether the shards
// are listed or given as the directory holding them.
func TestDiffOfShardsIsTheDiffOfTheRuns(t *testing.T) {
	const rows = 9_000
	dir := t.TempDir()
	whole := map[uint64]string{}
	shards := map[uint64][]string{}
	for _, seed := range []uint64{1, 2} {
		spec := synth.Spec{Rows: rows, Seed: seed, Rate: 1000, Hash: "h", BatchRows: 1000, Sessions: true}
		whole[seed] = filepath.Join(dir, fmt.Sprintf("whole-%d", seed))
		if _, err := synth.WriteRun(whole[seed], spec); err != nil {
			t.Fatal(err)
		}
		for i := range 3 {
			spec.Shard = results.Shard{Index: i, Count: 3}
			p := filepath.Join(dir, fmt.Sprintf("split-%d", seed), fmt.Sprintf("shard-%d", i))
			if _, err := synth.WriteRun(p, spec); err != nil {
				t.Fatal(err)
			}
			shards[seed] = append(shards[seed], p)
		}
	}
	render := func(d *Diff) string {
		d.A.Path, d.B.Path = "", ""
		out, err := json.Marshal(d)
		if err != nil {
			t.Fatal(err)
		}
		return string(out)
	}
	want, err := BuildDiff(whole[1], whole[2], DiffOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if want.NewlyFailedSlots == 0 || want.NewlyOKSlots == 0 {
		t.Fatalf("the runs differ in no slot: %+v", want)
	}
	listed, err := BuildDiffShards(shards[1], shards[2], DiffOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got := render(listed); got != render(want) {
		t.Fatalf("diff of listed shards:\n%s\nwant (whole runs):\n%s", got, render(want))
	}
	dirs, err := BuildDiff(filepath.Join(dir, "split-1"), filepath.Join(dir, "split-2"), DiffOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got := render(dirs); got != render(want) {
		t.Fatalf("diff of shard directories:\n%s\nwant (whole runs):\n%s", got, render(want))
	}
	// Two shards of three: said, not hidden.
	part, err := BuildDiffShards(shards[1][:2], shards[2], DiffOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(strings.Join(part.Warnings, "\n"), "shard 2/3 missing") {
		t.Fatalf("warnings %q do not name the missing shard", part.Warnings)
	}
	// One shard twice would count its slots twice.
	if _, err := BuildDiffShards([]string{shards[1][0], shards[1][0]}, shards[2], DiffOptions{}); err == nil || !strings.Contains(err.Error(), "both shard 0/3") {
		t.Fatalf("a shard given twice: %v", err)
	}
	// A whole run is no shard.
	if _, err := BuildDiffShards([]string{whole[1], shards[1][0]}, shards[2], DiffOptions{}); err == nil || !strings.Contains(err.Error(), "distinct shards of one run") {
		t.Fatalf("a whole run among shards: %v", err)
	}
}
