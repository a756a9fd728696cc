package cli

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	osexec "os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// `ulimit -n 64` with connections = 500: the run must say at the start
// that the connections do not fit the open-file limit, and what to do,
// instead of failing half its slots as local_resources without a word.
func TestFileLimitBelowConnectionsIsSaidUpFront(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	srv := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	defer srv.Close()
	bin := buildTressi(t)
	plan := writePlan(t, fmt.Sprintf(`
target "t" {
  url         = %q
  connections = 500
}
endpoint "e" {}
load {
  stage {
    duration = "1s"
    rate     = 600 # more slots than connections: all 500 may be open at once
  }
}`, srv.URL))
	out := filepath.Join(t.TempDir(), "run")
	cmd := osexec.Command("sh", "-c", `ulimit -n 64 && exec "$0" apply "$1" --out "$2" --quiet`, bin, plan, out)
	stderr, _ := cmd.CombinedOutput()
	if !strings.Contains(string(stderr), "open-file limit") || !strings.Contains(string(stderr), "500") || !strings.Contains(string(stderr), "ulimit -n") {
		t.Errorf("no up-front warning about the file limit:\n%s", stderr)
	}
}

// `ulimit -n 64` with 500 closed users on 500 connections: the connections
// take every descriptor there is, yet the run's own files are written (the
// results before the first connection, the rest from a reserve), the run
// ends as any other, and meta.json says how it ended, never "running".
func TestRunFilesNeverCompeteWithConnections(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	srv := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	defer srv.Close()
	bin := buildTressi(t)
	plan := writePlan(t, fmt.Sprintf(`
target "t" {
  url         = %q
  connections = 500
  timeout     = "30s"
}
endpoint "e" {}
load {
  model = "closed"
  stage {
    duration = "500ms"
    users    = 500
  }
}`, srv.URL))
	out := filepath.Join(t.TempDir(), "run")
	cmd := osexec.Command("sh", "-c", `ulimit -n 64 && exec "$0" apply "$1" --out "$2" --quiet`, bin, plan, out)
	output, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("apply: %v\n%s", err, output)
	}
	b, err := os.ReadFile(filepath.Join(out, "meta.json"))
	if err != nil {
		t.Fatal(err)
	}
	var meta struct {
		ExitStatus string `json:"exit_status"`
	}
	if err := json.Unmarshal(b, &meta); err != nil || meta.ExitStatus != "ok" {
		t.Fatalf("meta.json's exit_status %q (%v), want ok:\n%s", meta.ExitStatus, err, output)
	}
	if rows, truncated := countRows(t, filepath.Join(out, "results.arrow")); rows == 0 || truncated != nil {
		t.Fatalf("results.arrow: %d rows, %v", rows, truncated)
	}
	if _, err := os.Stat(filepath.Join(out, "samples.arrow")); err != nil {
		t.Fatal(err)
	}
}

// `tressi plan` says at plan time, with the numbers, what apply would say
// at the start: the connections do not fit the open-file limit.
func TestPlanSaysConnectionsExceedTheFileLimit(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := buildTressi(t)
	plan := writePlan(t, `
target "t" {
  url         = "http://127.0.0.1:9"
  connections = 500
}
endpoint "e" {}
load {
  stage {
    duration = "10s"
    rate     = 100
  }
}`)
	cmd := osexec.Command("sh", "-c", `ulimit -n 64 && exec "$0" plan "$1"`, bin, plan)
	output, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("plan: %v\n%s", err, output)
	}
	for _, want := range []string{"Warning: Connections exceed the open-file limit", "connections (500)", "(64)", "ulimit -n 532"} {
		if !strings.Contains(string(output), want) {
			t.Errorf("plan's output lacks %q:\n%s", want, output)
		}
	}
}

// A target's connections are a cap: 20 sessions never hold more than 20,
// so 20,000 connections do not make the run warn about the file limit
// (the Tinode example's 20,000 did, with 20 sessions).
func TestFileLimitCountsTheConnectionsARunCanHold(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := buildTressi(t)
	plan := writePlan(t, `
target "t" {
  url         = "http://127.0.0.1:9"
  connections = 20000
}
endpoint "e" {}
load {
  stage {
    duration = "1s"
    rate     = 20
  }
}`)
	cmd := osexec.Command("sh", "-c", `ulimit -n 256 && exec "$0" plan "$1"`, bin, plan)
	output, err := cmd.CombinedOutput()
	if err != nil || strings.Contains(string(output), "Warning") {
		t.Fatalf("plan: %v, a warning for 20 slots:\n%s", err, output)
	}
}
