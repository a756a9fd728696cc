package report

import (
	"encoding/json"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/tressi/tressi/report/synth"
	"github.com/tressi/tressi/results"
)

// writeShuffled writes spec's rows in the order an executor records them,
// by completion instant (due + latency; rows without a response at due +
// a 2 s timeout), leaving out the slots drop says, in batches of batch rows.
func writeShuffled(t *testing.T, dir string, spec synth.Spec, drop func(uint64) bool, batch int) string {
	t.Helper()
	var rows []results.Row
	for k := uint64(0); k < uint64(spec.Rows); k++ {
		if spec.Owns(k) && !drop(k) {
			rows = append(rows, spec.SlotRows(k)...)
		}
	}
	done := func(r results.Row) int64 {
		if r.Latency < 0 {
			return r.Scheduled + 2e9
		}
		return r.Scheduled + r.Latency
	}
	slices.SortStableFunc(rows, func(a, b results.Row) int { return int(done(a) - done(b)) })
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	f, err := os.Create(filepath.Join(dir, ResultsFile))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	w, err := results.NewWriter(f, spec.Meta(), spec.EndpointNames())
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < len(rows); i += batch {
		if err := w.Write(rows[i:min(i+batch, len(rows))]); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return dir
}

func diffJSON(t *testing.T, a, b string) (string, *Diff) {
	t.Helper()
	d, err := BuildDiff(a, b, DiffOptions{SlowerFactor: 1.5})
	if err != nil {
		t.Fatal(err)
	}
	out, err := json.Marshal(d)
	if err != nil {
		t.Fatal(err)
	}
	return string(out), d
}

// TestLockstepDiffIsTheWholeDiff: reading both runs in step, pairing slots
// a page at a time, gives exactly the diff of reading A whole and then B,
// for rows in completion order, runs with slots missing, runs of unknown
// slot count (the closed model) and single shards.
func TestLockstepDiffIsTheWholeDiff(t *testing.T) {
	const rows = 300_000
	pairBits = 12
	defer func() { pairBits = slotPageBits }()
	rng := rand.New(rand.NewPCG(7, 8))
	holes := map[uint64]bool{}
	for range 2000 {
		holes[uint64(rng.IntN(rows))] = true
	}
	for _, tc := range []struct {
		name  string
		known bool
		shard results.Shard
		dropA func(uint64) bool
		dropB func(uint64) bool
		rate  float64
		// open bounds the pages held at once (0: not checked). Pages
		// of 4096 slots here: 74 in the run; rows without a response
		// come 2 s (20,000 slots) late, and a batch spans 7,000 rows.
		open int
	}{
		{"complete runs", true, results.Shard{}, none, none, 10_000, 12},
		// Every page has a slot B never shows: all stay open to the end.
		{"slots missing in B", true, results.Shard{}, none, func(k uint64) bool { return holes[k] }, 10_000, 0},
		{"run A cut short", true, results.Shard{}, func(k uint64) bool { return k > rows*2/3 }, none, 10_000, 12},
		{"slot count unknown", false, results.Shard{}, none, none, 10_000, 12},
		{"one shard of three", true, results.Shard{Index: 1, Count: 3}, none, none, 10_000, 12},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			spec := func(seed uint64) synth.Spec {
				return synth.Spec{Rows: rows, Seed: seed, Rate: tc.rate, Hash: "h", KnownSlots: tc.known, Shard: tc.shard}
			}
			a := writeShuffled(t, filepath.Join(dir, "a"), spec(1), tc.dropA, 7000)
			b := writeShuffled(t, filepath.Join(dir, "b"), spec(2), tc.dropB, 5000)
			lastPairs = nil
			got, d := diffJSON(t, a, b)
			if lastPairs == nil {
				t.Fatal("the runs were not read in step")
			}
			if lastPairs.late != 0 {
				t.Fatalf("%d late rows", lastPairs.late)
			}
			if tc.open > 0 && lastPairs.mostOpen > tc.open {
				t.Errorf("%d pages open at once, want at most %d: memory grows with the run", lastPairs.mostOpen, tc.open)
			}
			t.Logf("%d pages open at most", lastPairs.mostOpen)
			noLockstep = true
			want, _ := diffJSON(t, a, b)
			noLockstep = false
			if got != want {
				t.Fatalf("in step:\n%s\nA whole, then B:\n%s", got, want)
			}
			var compared int64
			for _, e := range d.Endpoints {
				compared += e.Compared
			}
			if compared == 0 || d.NewlyFailedSlots == 0 {
				t.Fatalf("nothing compared: %s", got)
			}
		})
	}
}

func none(uint64) bool { return false }

// TestLockstepFallsBackOnSlotsWithSeveralRows: a run without scenarios
// whose slots have a second row after all (written last, long after their
// page was compared) is diffed by reading A whole and then B, so the
// figures are still exact.
func TestLockstepFallsBackOnSlotsWithSeveralRows(t *testing.T) {
	const rows = 100_000
	pairBits = 12
	defer func() { pairBits = slotPageBits }()
	dir := t.TempDir()
	specA := synth.Spec{Rows: rows, Seed: 1, Rate: 10_000, Hash: "h", KnownSlots: true}
	specB := synth.Spec{Rows: rows, Seed: 2, Rate: 10_000, Hash: "h", KnownSlots: true}
	a := writeShuffled(t, filepath.Join(dir, "a"), specA, none, 4000)
	var extra []results.Row
	for k := uint64(0); k < rows; k += 997 {
		r := specB.SlotRows(k)[0]
		r.Latency, r.Status, r.Error = r.Latency*3+1, 200, results.None
		r.Service = r.Latency - (r.Sent - r.Scheduled)
		extra = append(extra, r)
	}
	b := writeWithExtra(t, filepath.Join(dir, "b"), specB, extra)
	lastPairs = nil
	got, _ := diffJSON(t, a, b)
	if lastPairs == nil || lastPairs.late == 0 {
		t.Fatal("the second rows did not come late")
	}
	noLockstep = true
	want, _ := diffJSON(t, a, b)
	noLockstep = false
	if got != want {
		t.Fatalf("after falling back:\n%s\nA whole, then B:\n%s", got, want)
	}
}

// writeWithExtra writes spec's rows in slot order, then extra.
func writeWithExtra(t *testing.T, dir string, spec synth.Spec, extra []results.Row) string {
	t.Helper()
	var rows []results.Row
	for k := uint64(0); k < uint64(spec.Rows); k++ {
		rows = append(rows, spec.SlotRows(k)...)
	}
	rows = append(rows, extra...)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	f, err := os.Create(filepath.Join(dir, ResultsFile))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	w, err := results.NewWriter(f, spec.Meta(), spec.EndpointNames())
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < len(rows); i += 5000 {
		if err := w.Write(rows[i:min(i+5000, len(rows))]); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return dir
}
