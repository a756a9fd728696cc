package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// testdata/before-deltas is a run directory tressi wrote before it stored
// slot and scheduled_ns as deltas (150 requests against the built-in
// target), and testdata/before-deltas.csv that tressi's `report --format
// csv` of it. Today's report, verify, archive and diff still read it, row
// for row as that tressi did.
func TestRunsBeforeDeltasStillRead(t *testing.T) {
	const run = "testdata/before-deltas"
	want, err := os.ReadFile("testdata/before-deltas.csv")
	if err != nil {
		t.Fatal(err)
	}
	csv := filepath.Join(t.TempDir(), "rows.csv")
	mustRun(t, 0, "report", run, "--format", "csv", "-o", csv)
	if got, _ := os.ReadFile(csv); string(got) != string(want) {
		t.Fatalf("report --format csv of the older run differs from what the tressi that wrote it read:\n%s", got)
	}
	out, _ := mustRun(t, 0, "verify", run)
	if !strings.Contains(out, "150 rows in 1 batches, each matching its checksum") || !strings.Contains(out, "is verified") {
		t.Fatalf("verify of the older run:\n%s", out)
	}
	arc := filepath.Join(t.TempDir(), "old.tar.zst")
	mustRun(t, 0, "archive", run, "-o", arc)
	if out, _ := mustRun(t, 0, "verify", arc); !strings.Contains(out, "is verified") {
		t.Fatalf("verify of the older run's archive:\n%s", out)
	}
	if out, _ := mustRun(t, 0, "diff", run, run, "--format", "json"); !strings.Contains(out, `"rows": 150`) {
		t.Fatalf("diff of the older run with itself:\n%s", out)
	}
}
