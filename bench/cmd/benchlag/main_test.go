package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/tressi/tressi/results"
)

// TestSummarize writes 100 rows with send lags 1..100 ms (one never sent)
// and checks the percentiles and per-row size benchlag reports.
func TestSummarize(t *testing.T) {
	path := filepath.Join(t.TempDir(), "results.arrow")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w, err := results.NewWriter(f, results.Meta{Version: "test", RunID: "r"}, []string{"root"})
	if err != nil {
		t.Fatal(err)
	}
	rows := make([]results.Row, 101)
	for i := range rows {
		rows[i] = results.Row{Slot: uint64(i), Scheduled: int64(i) * 1e6, Sent: int64(i)*1e6 + int64(i+1)*1e6,
			Latency: int64(i+2) * 1e6, Service: 1e6, Status: 200}
	}
	rows[100].Sent, rows[100].Latency, rows[100].Service, rows[100].Status = -1, -1, -1, 0
	if err := w.Write(rows); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}

	s, err := summarize(path)
	if err != nil {
		t.Fatal(err)
	}
	if s.Rows != 101 || s.NotSent != 1 || s.LagP50Ms != 50 || s.LagP99Ms != 99 || s.LagMaxMs != 100 {
		t.Errorf("summary = %+v, want 101 rows, 1 not sent, lag p50 50, p99 99, max 100", s)
	}
	if s.Bytes <= 0 || s.BytesPerRow != float64(s.Bytes)/101 {
		t.Errorf("bytes %d, per row %.1f", s.Bytes, s.BytesPerRow)
	}
}
