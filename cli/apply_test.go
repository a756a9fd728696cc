package cli

import (
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	osexec "os/exec"
	"path/filepath"
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
	cmd := osexec.Command(bin, "apply", applyPlan(t, srv.URL, 200, 10), "--out", out, "--quiet")
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
	// The recorder flushes at least every second; give it a few.
	time.Sleep(3500 * time.Millisecond)
	cmd.Process.Kill()
	cmd.Wait()
	rows, _ := countRows(t, filepath.Join(out, exec.ResultsFile))
	if rows == 0 || rows >= 5000 {
		t.Fatalf("%d rows readable after SIGKILL at 3.5 s of a 5000-slot run", rows)
	}
	t.Logf("%d rows readable after SIGKILL", rows)
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
