package cli

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tressi/tressi/compile"
	"github.com/tressi/tressi/report"
)

// failingEveryFifth is a plan of rate×seconds requests whose fifth, tenth,
// … slot asks for a 500: with four shards (slot k mod 4) each shard gets
// exactly a fifth of the failures, so a count threshold can hold for every
// shard and still fail for the whole.
func failingEveryFifth(t *testing.T, url string, rate, seconds, errorCount int) string {
	t.Helper()
	dir := t.TempDir()
	src := fmt.Sprintf(`
variable "base_url" {
  type    = string
  default = %q
}
target "t" {
  url     = var.base_url
  timeout = "30s" # a busy machine's slow answer is not one of the counted errors
}
endpoint "ok" {
  path   = "/"
  weight = 4
}
endpoint "fail" {
  path   = "/status/500"
  weight = 1
}
load {
  stage {
    duration = "%ds"
    rate     = %d
  }
}
thresholds {
  error_count = %d
}
`, url, seconds, rate, errorCount)
	if err := os.WriteFile(filepath.Join(dir, "plan.hcl"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// statusServer answers 500 on /status/500 and 200 elsewhere.
func statusServer(t *testing.T) string {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/status/500" {
			w.WriteHeader(500)
		}
		fmt.Fprint(w, "ok")
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

func planHash(t *testing.T, args ...string) string {
	t.Helper()
	code, out, errs := run(t, nil, append([]string{"plan", "--json"}, args...)...)
	if code != 0 {
		t.Fatalf("plan: exit %d\n%s", code, errs)
	}
	var s compile.Summary
	if err := json.Unmarshal([]byte(out), &s); err != nil {
		t.Fatal(err)
	}
	return s.ScheduleHash
}

func TestApplyExpectHash(t *testing.T) {
	dir := failingEveryFifth(t, statusServer(t), 50, 1, 1000)
	hash := planHash(t, dir)
	other := planHash(t, dir, "-var", "base_url=http://127.0.0.1:1")
	for _, tc := range []struct {
		name   string
		expect string
		vars   []string
		code   int
		says   []string
	}{
		{"the planned hash", hash, nil, 0, nil},
		{"its first 12 hex digits", strings.TrimPrefix(hash, "sha256:")[:12], nil, 0, nil},
		{"another variable", hash, []string{"-var", "base_url=http://127.0.0.1:1"}, 1,
			[]string{"compiles to schedule " + other, "--expect-hash is " + hash, "variables"}},
		{"too short to be sure", "abc", nil, 1, []string{"at least its first 12 hex digits"}},
		{"not hex", "sha256:zzzzzzzzzzzzzzzz", nil, 1, []string{"want the schedule hash"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "run")
			args := append([]string{"apply", dir, "--quiet", "--out", out, "--expect-hash", tc.expect}, tc.vars...)
			code, _, errs := run(t, nil, args...)
			if code != tc.code {
				t.Fatalf("exit %d, want %d\n%s", code, tc.code, errs)
			}
			for _, s := range tc.says {
				if !strings.Contains(errs, s) {
					t.Errorf("stderr %q does not say %q", errs, s)
				}
			}
			if _, err := os.Stat(out); (err == nil) != (tc.code == 0) {
				t.Errorf("run directory exists = %v, want %v", err == nil, tc.code == 0)
			}
		})
	}
}

func TestApplyRefusesALateShard(t *testing.T) {
	dir := failingEveryFifth(t, statusServer(t), 50, 1, 1000)
	out := filepath.Join(t.TempDir(), "late")
	late := time.Now().Add(-5 * time.Second).UTC().Format(time.RFC3339Nano)
	code, _, errs := run(t, nil, "apply", dir, "--quiet", "--shard", "3/4", "--start-at", late, "--out", out)
	if code != ExitInvalid || !strings.Contains(errs, "refusing to start: --start-at "+late) || !strings.Contains(errs, "more than the start tolerance of 1s") {
		t.Fatalf("exit %d, stderr %q; want exit 1 saying the start passed", code, errs)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("a refused shard left %s", out)
	}
	// A wider tolerance lets it run (the operator's explicit choice).
	code, _, errs = run(t, nil, "apply", dir, "--quiet", "--shard", "3/4", "--start-at", late, "--start-tolerance", "1m", "--out", out)
	if code != 0 {
		t.Fatalf("--start-tolerance 1m: exit %d\n%s", code, errs)
	}
	code, _, errs = run(t, nil, "apply", dir, "--start-tolerance", "0s")
	if code != ExitInvalid || !strings.Contains(errs, "want a duration above zero") {
		t.Errorf("--start-tolerance 0s: exit %d, stderr %q", code, errs)
	}
}

// Four shards each pass error_count = 100 alone with 60 errors; merged they
// hold 240, and the report over all four fails the threshold (exit 2). A
// shard of the same schedule re-run later merges with a warning.
func TestReportJudgesThresholdsOverAllShards(t *testing.T) {
	url := statusServer(t)
	dir := failingEveryFifth(t, url, 300, 4, 100) // 1200 requests, 240 to /status/500
	hash := planHash(t, dir)
	root := t.TempDir()
	start := time.Now().Add(3 * time.Second).UTC().Format(time.RFC3339Nano)
	shards := make([]string, 4)
	codes := make([]int, 4)
	errs := make([]string, 4)
	var wg sync.WaitGroup
	for i := range shards {
		shards[i] = filepath.Join(root, fmt.Sprintf("shard-%d", i))
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			codes[i], _, errs[i] = run(t, nil, "apply", dir, "--quiet", "--expect-hash", hash,
				"--shard", fmt.Sprintf("%d/4", i), "--start-at", start, "--out", shards[i])
		}(i)
	}
	wg.Wait()
	for i := range shards {
		if codes[i] != 0 {
			meta, _ := os.ReadFile(filepath.Join(shards[i], "meta.json"))
			t.Fatalf("shard %d: exit %d (60 errors pass error_count = 100 alone)\n%s\n%s", i, codes[i], errs[i], meta)
		}
	}
	code, out, stderr := run(t, nil, append([]string{"report", "--format", "json"}, shards...)...)
	if code != ExitThresholds {
		t.Fatalf("report over 4 shards: exit %d, want 2\n%s", code, stderr)
	}
	var rep report.Report
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Requests != 1200 || rep.Errors != 240 || len(rep.Thresholds) != 1 || rep.Thresholds[0].OK || rep.Thresholds[0].Actual != 240 {
		t.Fatalf("merged: %d requests, %d errors, thresholds %+v; want 1200, 240, error_count failed at 240", rep.Requests, rep.Errors, rep.Thresholds)
	}
	for _, sh := range shards {
		if code, _, stderr := run(t, nil, "report", sh); code != 0 {
			t.Errorf("report %s alone: exit %d, want 0\n%s", sh, code, stderr)
		}
	}

	// Shard 3 again, for another start: merged with the first attempt's
	// other shards, the report says they did not run together.
	rerun := filepath.Join(root, "shard-3-again")
	again := time.Now().Add(1500 * time.Millisecond).UTC().Format(time.RFC3339Nano)
	if code, _, stderr := run(t, nil, "apply", dir, "--quiet", "--shard", "3/4", "--start-at", again, "--out", rerun); code != 0 {
		t.Fatalf("re-run: exit %d\n%s", code, stderr)
	}
	_, _, stderr = run(t, nil, "report", shards[0], shards[1], shards[2], rerun)
	if !strings.Contains(stderr, "were given start times") || !strings.Contains(stderr, "3/4 +") {
		t.Errorf("report over a re-run shard: stderr %q, want a start-time warning naming 3/4", stderr)
	}
}
