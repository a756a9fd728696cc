package cli

import (
	"encoding/json"
	"errors"
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

// smallDisk mounts a tmpfs of size bytes for the test (root only).
func smallDisk(t *testing.T, size string) string {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("mounting a small tmpfs needs root")
	}
	dir := t.TempDir()
	if out, err := osexec.Command("mount", "-t", "tmpfs", "-o", "size="+size, "tmpfs", dir).CombinedOutput(); err != nil {
		t.Skipf("cannot mount a tmpfs: %v %s", err, out)
	}
	t.Cleanup(func() { osexec.Command("umount", "-l", dir).Run() })
	return dir
}

// fill writes into dir until the file system is full.
func fill(t *testing.T, dir string) {
	t.Helper()
	f, err := os.Create(filepath.Join(dir, "filler"))
	if err != nil && !errors.Is(err, syscall.ENOSPC) {
		t.Fatal(err)
	}
	if f == nil {
		return
	}
	defer f.Close()
	chunk := make([]byte, 4096)
	for {
		if _, err := f.Write(chunk); err != nil {
			return
		}
	}
}

// The disk fills up mid-run: the load stops at once (not at the end of the
// schedule), meta.json stays whole, what was written stays readable, and
// the exit code is the one a full disk gives at the start too.
func TestDiskFullMidRun(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	defer srv.Close()
	disk := smallDisk(t, "2m")
	out := filepath.Join(disk, "run")
	plan := applyPlan(t, srv.URL, 500, 30)
	type result struct {
		code           int
		stdout, stderr string
	}
	done := make(chan result, 1)
	go func() {
		code, stdout, stderr := run(t, nil, "apply", plan, "--out", out, "--quiet")
		done <- result{code, stdout, stderr}
	}()
	// Wait for the first rows (the file starts with its schema and an
	// empty batch, so its size alone says nothing).
	results := filepath.Join(out, exec.ResultsFile)
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		if rowsSoFar(results) > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("no rows recorded after 20 s")
		}
	}
	fill(t, disk)
	filled := time.Now()
	var r result
	select {
	case r = <-done:
	case <-time.After(25 * time.Second):
		t.Fatal("the run went on for 25 s after the disk filled up (the schedule is 30 s)")
	}
	if took := time.Since(filled); took > 15*time.Second {
		t.Errorf("the run stopped %v after the disk filled up; it must stop as soon as recording fails", took)
	}
	if r.code != ExitInternal || !strings.Contains(r.stderr, "no space left on device") {
		t.Errorf("exit %d, stderr %q; want %d and the cause", r.code, r.stderr, ExitInternal)
	}
	var meta map[string]any
	data, err := os.ReadFile(filepath.Join(out, exec.MetaFile))
	if err != nil || json.Unmarshal(data, &meta) != nil {
		t.Errorf("meta.json is not whole after the disk filled up (%d bytes, %v): %q", len(data), err, data)
	}
	rows, _ := countRows(t, results)
	if rows == 0 {
		t.Error("no rows readable")
	}
	code, stdout, _ := run(t, nil, "report", out, "--format", "json")
	if code != 0 || !strings.Contains(stdout, `"partial": true`) {
		t.Errorf("report exit %d; a run stopped by a full disk must read as partial: %.400s", code, stdout)
	}
}

// A disk already full gives the same exit code as one that fills up.
func TestDiskFullAtStart(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	defer srv.Close()
	disk := smallDisk(t, "64k")
	fill(t, disk)
	code, _, stderr := run(t, nil, "apply", applyPlan(t, srv.URL, 10, 1), "--out", filepath.Join(disk, "run"), "--quiet")
	if code != ExitInternal || !strings.Contains(stderr, "no space left on device") {
		t.Errorf("exit %d, stderr %q; want %d and the cause", code, stderr, ExitInternal)
	}
}

// rowsSoFar counts the rows of a results file being written, 0 while it
// is missing or holds less than its schema (the writer creates the file
// before it writes anything: reading it then is no error of the run's).
func rowsSoFar(path string) int {
	r, err := results.Open(path)
	if err != nil {
		return 0
	}
	defer r.Close()
	rows := 0
	for {
		b, ok := r.Next()
		if !ok {
			return rows
		}
		rows += b.Len
	}
}
