package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	osexec "os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tressi/tressi/exec"
	"github.com/tressi/tressi/results"
)

// buildTressi builds the real binary once per test into a temporary directory.
func buildTressi(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "tressi")
	out, err := osexec.Command("go", "build", "-o", bin, "github.com/tressi/tressi/cmd/tressi").CombinedOutput()
	if err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// applyPlan writes a plan of rate req/s for seconds against url.
func applyPlan(t *testing.T, url string, rate, seconds int) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "load.hcl")
	src := fmt.Sprintf(`
target "t" {
  url         = %q
  connections = 64
  timeout     = "500ms"
}
endpoint "home" { path = "/" }
load {
  stage {
    duration = "%ds"
    rate     = %d
  }
}
`, url, seconds, rate)
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// countRows reads a results file, tolerating a cut-off tail.
func countRows(t *testing.T, path string) (rows int, truncated error) {
	t.Helper()
	r, err := results.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	for {
		b, ok := r.Next()
		if !ok {
			break
		}
		rows += b.Len
	}
	if r.Err() != nil {
		t.Fatal(r.Err())
	}
	return rows, r.Truncated
}

// A real `tressi apply` process gets SIGINT mid-run: it exits 130 and
// leaves complete files with one row per slot.
func TestApplySIGINT(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	defer srv.Close()
	bin := buildTressi(t)
	out := filepath.Join(t.TempDir(), "run")
	cmd := osexec.Command(bin, "apply", applyPlan(t, srv.URL, 200, 10), "--out", out)
	var stdout strings.Builder
	cmd.Stdout = &stdout
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(1500 * time.Millisecond)
	cmd.Process.Signal(syscall.SIGINT)
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		var ee *osexec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != ExitInterrupted {
			t.Fatalf("exit: %v, want %d", err, ExitInterrupted)
		}
	case <-time.After(5 * time.Second):
		cmd.Process.Kill()
		t.Fatal("apply did not stop within 5 s of SIGINT")
	}
	rows, trunc := countRows(t, filepath.Join(out, exec.ResultsFile))
	if rows != 2000 || trunc != nil {
		t.Fatalf("%d rows (truncated: %v), want all 2000 slots", rows, trunc)
	}
	for _, f := range []string{exec.SamplesFile, exec.PlanFile, exec.MetaFile} {
		if _, err := os.Stat(filepath.Join(out, f)); err != nil {
			t.Fatal(err)
		}
	}
	// The summary says first that the run was cut short and that the
	// slots it never sent are no errors; a report read later says the same.
	lines := strings.SplitN(stdout.String(), "\n", 3)
	if len(lines) < 2 || !strings.HasPrefix(lines[0], "INTERRUPTED RUN") || !strings.Contains(lines[1], "not errors") {
		t.Errorf("the summary of an interrupted run starts %q", lines)
	}
	_, rep, _ := run(t, nil, "report", out)
	if !strings.HasPrefix(rep, "INTERRUPTED RUN") {
		t.Errorf("tressi report of an interrupted run starts %q", strings.SplitN(rep, "\n", 2)[0])
	}
}

// kill -9 mid-run: every batch flushed before it stays readable.
func TestApplySIGKILL(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	defer srv.Close()
	bin := buildTressi(t)
	out := filepath.Join(t.TempDir(), "run")
	cmd := osexec.Command(bin, "apply", applyPlan(t, srv.URL, 500, 10), "--out", out, "--quiet")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// The recorder flushes at least every second, on an idle-priority
	// thread that a machine busy with other work may hold back: kill the
	// run once a first batch is on disk (after at least 2 s), whenever
	// that is within the 10 s run.
	resultsPath := filepath.Join(out, exec.ResultsFile)
	time.Sleep(2 * time.Second)
	for deadline := time.Now().Add(7 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		if hasABatch(resultsPath) {
			break
		}
	}
	cmd.Process.Kill()
	cmd.Wait()
	rows, _ := countRows(t, resultsPath)
	if rows == 0 || rows >= 5000 {
		t.Fatalf("%d rows readable after SIGKILL within a 5000-slot run", rows)
	}
	t.Logf("%d rows readable after SIGKILL", rows)
	checkReportSaysPartial(t, out, 5000-int64(rows))
}

// hasABatch says whether a results file being written holds a readable batch.
func hasABatch(path string) bool {
	r, err := results.Open(path)
	if err != nil {
		return false
	}
	defer r.Close()
	b, ok := r.Next()
	return ok && b.Len > 0
}

// checkReportSaysPartial runs `tressi report --format json` on a run cut
// short and checks it says so, with the number of slots missing.
func checkReportSaysPartial(t *testing.T, dir string, missing int64) {
	t.Helper()
	code, stdout, stderr := run(t, nil, "report", dir, "--format", "json")
	if code != 0 {
		t.Fatalf("report exit %d: %s", code, stderr)
	}
	var rep struct {
		Partial      bool     `json:"partial"`
		MissingSlots int64    `json:"missing_slots"`
		Warnings     []string `json:"warnings"`
		Shards       []struct {
			Truncated bool `json:"truncated"`
		} `json:"shards"`
	}
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatal(err)
	}
	if !rep.Partial || rep.MissingSlots != missing || len(rep.Warnings) == 0 || !rep.Shards[0].Truncated {
		t.Errorf("report of a run cut short: partial %v, missing_slots %d (want %d), truncated %v, warnings %q",
			rep.Partial, rep.MissingSlots, missing, rep.Shards[0].Truncated, rep.Warnings)
	}
}

// Two Ctrl-C in a row on the loop engine, before its first batch: what was
// written must still read as a (partial) run, never as an empty file.
func TestApplyDoubleSIGINTLeavesReadableResults(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	// A server slower than the grace: the first Ctrl-C waits on it, the
	// second lands while it waits.
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-time.After(3 * time.Second):
		}
	}))
	defer srv.Close()
	bin := buildTressi(t)
	out := filepath.Join(t.TempDir(), "run")
	cmd := osexec.Command(bin, "apply", applyPlan(t, srv.URL, 200, 10), "--out", out, "--quiet", "--engine", "loop")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	results := filepath.Join(out, exec.ResultsFile)
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		if _, err := os.Stat(results); err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("no results file after 30 s")
		}
	}
	time.Sleep(200 * time.Millisecond) // signals handled by now; well before the first batch's second
	cmd.Process.Signal(syscall.SIGINT)
	time.Sleep(20 * time.Millisecond)
	cmd.Process.Signal(syscall.SIGINT)
	cmd.Wait()
	rows, _ := countRows(t, results)
	checkReportSaysPartial(t, out, 2000-int64(rows))
}

func TestFreeRunDirNeverCollides(t *testing.T) {
	base := filepath.Join(t.TempDir(), "p-20260101T000000Z")
	if got := freeRunDir(base); got != base {
		t.Fatalf("free dir %q, want %q", got, base)
	}
	for _, want := range []string{base + "-2", base + "-3"} {
		if err := os.MkdirAll(freeRunDir(base), 0o755); err != nil {
			t.Fatal(err)
		}
		if got := freeRunDir(base); got != want {
			t.Fatalf("free dir %q, want %q", got, want)
		}
	}
}
