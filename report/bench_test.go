package report

import (
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
