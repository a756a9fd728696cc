package report

import (
	"path/filepath"
	"testing"

	"github.com/tressi/tressi/report/synth"
)

// report and diff read one run alike: the same requests, errors, error
// rate and cut-off rows, from results.Counts. For an early-stopped run
// report said 17 errors and 778 not sent, diff 795 failed slots and a
// 96.951 % error rate (it counted the slots never sent as failures, and
// gated on that).
func TestReportAndDiffAgreeOnTheFigures(t *testing.T) {
	dir := t.TempDir()
	run := filepath.Join(dir, "run")
	if _, err := synth.WriteRun(run, synth.Spec{Rows: 20_000, Seed: 3, Rate: 1000, Hash: "h", BatchRows: 3000}); err != nil {
		t.Fatal(err)
	}
	rep, err := Build([]string{run}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	d, err := BuildDiff(run, run, DiffOptions{SlowerFactor: 2})
	if err != nil {
		t.Fatal(err)
	}
	s := rep.Summary
	if s.NotSent == 0 {
		t.Fatal("the synthetic run has no not_sent rows: nothing to tell apart")
	}
	for _, side := range []DiffSide{d.A, d.B} {
		if side.Requests != s.Requests || side.Errors != s.Errors || side.ErrorRate != s.ErrorRate || side.CutOff != s.NotSent+s.Interrupted {
			t.Fatalf("diff: %d requests, %d errors, rate %v, %d cut off; report: %d, %d, %v, %d not sent + %d interrupted",
				side.Requests, side.Errors, side.ErrorRate, side.CutOff, s.Requests, s.Errors, s.ErrorRate, s.NotSent, s.Interrupted)
		}
	}
	if d.NewlyFailedSlots != 0 || d.NewlyOKSlots != 0 {
		t.Fatalf("a run against itself: %d newly failed, %d newly ok", d.NewlyFailedSlots, d.NewlyOKSlots)
	}
}
