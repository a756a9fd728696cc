package report

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/tressi/tressi/results"
)

// writeRows writes a run directory holding exactly rows, with meta as the
// results metadata and, when metaJSON is not empty, that meta.json.
func writeRows(t testing.TB, meta results.Meta, names []string, rows []results.Row, metaJSON string) string {
	t.Helper()
	dir := t.TempDir()
	f, err := os.Create(filepath.Join(dir, ResultsFile))
	if err != nil {
		t.Fatal(err)
	}
	w, err := results.NewWriter(f, meta, names)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write(rows); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	if metaJSON != "" {
		if err := os.WriteFile(filepath.Join(dir, MetaFile), []byte(metaJSON), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// stoppedRows is a run of n slots stopped after sent of them: every sent
// request answered 200 except the last inFlight, cut off by the stop.
func stoppedRows(n, sent, inFlight int) []results.Row {
	rows := make([]results.Row, n)
	for k := range rows {
		due := int64(k) * 1e6
		r := results.Row{Slot: uint64(k), Scheduled: due, Sent: -1, Latency: -1, Service: -1}
		switch {
		case k < sent-inFlight:
			r.Sent, r.Latency, r.Service, r.Status = due, 1e6, 1e6, 200
		case k < sent:
			r.Sent, r.Error = due, results.Interrupted
		default:
			r.Error = results.NotSent
		}
		rows[k] = r
	}
	return rows
}
