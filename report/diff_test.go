package report

import (
	"path/filepath"
	"slices"
	"testing"

	"github.com/tressi/tressi/report/synth"
	"github.com/tressi/tressi/results"
)

// synthOK is whether a synthetic row is ok, computed from the row alone.
func synthOK(r results.Row) bool {
	if r.Error != results.None || r.Latency < 0 {
		return false
	}
	return results.ExpectsStatus(synth.Expect[synth.Endpoints[r.Endpoint]], int(r.Status))
}

// TestDiffMatchesSlotTruth diffs two synthetic runs of one schedule hash
// and checks every count and listed slot against a slot-by-slot
// recomputation of both runs' rows.
func TestDiffMatchesSlotTruth(t *testing.T) {
	const rows = 20_000
	dir := t.TempDir()
	a := synth.Spec{Rows: rows, Seed: 1, Rate: 1000, Hash: "h", BatchRows: 3000}
	b := synth.Spec{Rows: rows, Seed: 2, Rate: 1000, Hash: "h", BatchRows: 3000}
	pa, pb := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	for p, s := range map[string]synth.Spec{pa: a, pb: b} {
		if _, err := synth.WriteRun(p, s); err != nil {
			t.Fatal(err)
		}
	}
	d, err := BuildDiff(pa, pb, DiffOptions{SlowerFactor: 2})
	if err != nil {
		t.Fatal(err)
	}
	if !d.SameSchedule {
		t.Fatal("one hash, but not compared slot by slot")
	}
	var newlyFailed, newlyOK int64
	failedBy := map[groupKey][]uint64{}
	var slower, compared int64
	for k := uint64(0); k < rows; k++ {
		ra, rb := a.SlotRows(k)[0], b.SlotRows(k)[0]
		// A row a stop cut off is neither ok nor failed (results.Counts).
		oa, ob := synthOK(ra) && !ra.Error.CutOff(), synthOK(rb) && !rb.Error.CutOff()
		fa, fb := !synthOK(ra) && !ra.Error.CutOff(), !synthOK(rb) && !rb.Error.CutOff()
		switch {
		case oa && fb:
			newlyFailed++
			kind := results.ErrorNames[rb.Error]
			if kind == "" {
				kind = statusKind(int(rb.Status))
			}
			key := groupKey{synth.Endpoints[rb.Endpoint], kind}
			failedBy[key] = append(failedBy[key], k)
		case fa && ob:
			newlyOK++
		case oa && ob && synth.Endpoints[rb.Endpoint] == "home":
			compared++
			if float64(rb.Latency/1000+1) > 2*float64(ra.Latency/1000+1) {
				slower++
			}
		}
	}
	if d.NewlyFailedSlots != newlyFailed || d.NewlyOKSlots != newlyOK {
		t.Fatalf("newly failed %d, newly ok %d; truth %d and %d", d.NewlyFailedSlots, d.NewlyOKSlots, newlyFailed, newlyOK)
	}
	for _, g := range d.NewlyFailed {
		want := failedBy[groupKey{g.Endpoint, g.Kind}]
		if g.Slots != int64(len(want)) {
			t.Errorf("%s %s: %d slots, truth %d", g.Endpoint, g.Kind, g.Slots, len(want))
		}
		for i, s := range g.First {
			if s.Slot != want[i] {
				t.Errorf("%s %s: first slot %d is %d, truth %d", g.Endpoint, g.Kind, i, s.Slot, want[i])
			}
		}
		if g.List != nil && !slices.Equal(g.List, want) {
			t.Errorf("%s %s: list differs from the truth", g.Endpoint, g.Kind)
		}
		delete(failedBy, groupKey{g.Endpoint, g.Kind})
	}
	if len(failedBy) > 0 {
		t.Errorf("groups missing from the diff: %v", failedBy)
	}
	for _, e := range d.Endpoints {
		if e.Name == "home" && (e.Compared != compared || e.Slower != slower) {
			t.Errorf("home: %d slower of %d compared; truth %d of %d", e.Slower, e.Compared, slower, compared)
		}
	}
}

// TestDiffOfDifferentSchedulesComparesSummaries: another hash means no slot
// is matched, and the diff says so.
func TestDiffOfDifferentSchedulesComparesSummaries(t *testing.T) {
	dir := t.TempDir()
	pa, pb := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	synth.WriteRun(pa, synth.Spec{Rows: 2000, Seed: 1, Rate: 1000, Hash: "x"})
	synth.WriteRun(pb, synth.Spec{Rows: 2000, Seed: 1, Rate: 1000, Hash: "y"})
	d, err := BuildDiff(pa, pb, DiffOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if d.SameSchedule || d.Note == "" || d.NewlyFailedSlots != 0 || len(d.NewlyFailed) != 0 {
		t.Fatalf("different schedules: %+v", d)
	}
	if d.A.Requests != 2000 || d.B.Requests != 2000 || d.A.ErrorRate != d.B.ErrorRate {
		t.Fatalf("summaries of identical rows differ: %+v vs %+v", d.A, d.B)
	}
}
