package report

import (
	"fmt"
	"path/filepath"
	"slices"
	"testing"

	"github.com/tressi/tressi/report/synth"
	"github.com/tressi/tressi/results"
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

// BenchmarkTallyAdd counts 1M rows already decoded and held in memory:
// the report's row loop alone, apart from reading and decoding.
func BenchmarkTallyAdd(b *testing.B) {
	const rows = 1 << 20
	dir := filepath.Join(b.TempDir(), "run")
	if _, err := synth.WriteRun(dir, synth.Spec{Rows: rows, Seed: 1, Rate: 10_000}); err != nil {
		b.Fatal(err)
	}
	r, err := results.Open(filepath.Join(dir, ResultsFile))
	if err != nil {
		b.Fatal(err)
	}
	defer r.Close()
	if err := r.Only(reportColumns...); err != nil {
		b.Fatal(err)
	}
	var batches []*results.Batch
	for {
		batch, ok := r.Next()
		if !ok {
			break
		}
		batches = append(batches, cloneBatch(batch))
	}
	if err := r.Err(); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		t := newTally()
		for _, batch := range batches {
			if err := t.add(batch, r.Meta); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/rows, "ns/row")
}

// cloneBatch copies what a reader hands out until its next batch.
func cloneBatch(b *results.Batch) *results.Batch {
	c := *b
	c.Slot, c.Scheduled, c.Sent = slices.Clone(b.Slot), slices.Clone(b.Scheduled), slices.Clone(b.Sent)
	c.Latency, c.Service, c.Status = slices.Clone(b.Latency), slices.Clone(b.Service), slices.Clone(b.Status)
	c.BytesOut, c.BytesIn, c.Connect = slices.Clone(b.BytesOut), slices.Clone(b.BytesIn), slices.Clone(b.Connect)
	c.Endpoint, c.Error = slices.Clone(b.Endpoint), slices.Clone(b.Error)
	return &c
}
