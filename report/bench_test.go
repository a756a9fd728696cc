package report

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/tressi/tressi/report/synth"
)

// BenchmarkReport5M builds the summary of 5 million rows from a file written
// once before timing. Target: under 2 s and 300 MB peak RSS on 2 cores.
func BenchmarkReport5M(b *testing.B) {
	const rows = 5_000_000
	dir := filepath.Join(b.TempDir(), "run")
	if _, err := synth.WriteRun(dir, synth.Spec{Rows: rows, Seed: 1, Rate: 10_000}); err != nil {
		b.Fatal(err)
	}
	var rep *Report
	for b.Loop() {
		var err error
		if rep, err = Build([]string{dir}, Options{}); err != nil {
			b.Fatal(err)
		}
	}
	if rep.Requests != rows {
		b.Fatalf("%d requests, want %d", rep.Requests, rows)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/rows, "ns/row")
}

// BenchmarkDiff2M diffs two 2-million-row runs of one schedule, written once
// before timing (BenchmarkDiffRun takes runs of any size from the
// environment). Target: 10M rows a side within 2 s on 2 cores.
func BenchmarkDiff2M(b *testing.B) {
	const rows = 2_000_000
	dir := b.TempDir()
	var paths [2]string
	for i := range paths {
		paths[i] = filepath.Join(dir, fmt.Sprint("run", i))
		spec := synth.Spec{Rows: rows, Seed: uint64(i + 1), Rate: 10_000, Hash: "same", KnownSlots: true}
		if _, err := synth.WriteRun(paths[i], spec); err != nil {
			b.Fatal(err)
		}
	}
	var d *Diff
	for b.Loop() {
		var err error
		if d, err = BuildDiff(paths[0], paths[1], DiffOptions{}); err != nil {
			b.Fatal(err)
		}
	}
	if d.A.Rows != rows || d.B.Rows != rows || !d.SameSchedule {
		b.Fatalf("%d and %d rows, same schedule %v", d.A.Rows, d.B.Rows, d.SameSchedule)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/(2*rows), "ns/row")
}
