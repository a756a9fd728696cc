package report

import (
	"os"
	"testing"
)

// BenchmarkReportRun summarises the run directory named by
// TRESSI_BENCH_RUN, e.g. 10 million rows written once with
//
//	go run ./report/synth/synthrun -rows 10000000 -out /tmp/tressi-10m
//	TRESSI_BENCH_RUN=/tmp/tressi-10m go test ./report -run X -bench ReportRun
//
// Target: 10M rows in under 1 s on 2 cores (docs/archive.md).
func BenchmarkReportRun(b *testing.B) {
	dir := os.Getenv("TRESSI_BENCH_RUN")
	if dir == "" {
		b.Skip("TRESSI_BENCH_RUN is not set")
	}
	var rep *Report
	for b.Loop() {
		var err error
		if rep, err = Build([]string{dir}, Options{}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(rep.Requests), "ns/row")
}

// BenchmarkDiffRun diffs TRESSI_BENCH_RUN with TRESSI_BENCH_RUN_B, e.g. two
// synthetic 10M-row runs written with one -hash. Target: under 2 s.
func BenchmarkDiffRun(b *testing.B) {
	a, bb := os.Getenv("TRESSI_BENCH_RUN"), os.Getenv("TRESSI_BENCH_RUN_B")
	if a == "" || bb == "" {
		b.Skip("TRESSI_BENCH_RUN and TRESSI_BENCH_RUN_B are not set")
	}
	var d *Diff
	for b.Loop() {
		var err error
		if d, err = BuildDiff(a, bb, DiffOptions{}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(d.A.Rows+d.B.Rows), "ns/row")
}
