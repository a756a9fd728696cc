package cli

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tressi/tressi/report"
)

// TestEarlyExitJudgesOnlyRequestsSent: a live threshold stops a run of
// scenario sessions after two real errors. The sessions never started are
// recorded as not_sent rows, many of them at once; they say nothing about
// the server, so neither the message that names what stopped the run nor
// the verdict counts them as errors. (They did: an error rate tripped by
// the not_sent rows themselves was reported, 60% for 2 real errors.)
func TestEarlyExitJudgesOnlyRequestsSent(t *testing.T) {
	var hits atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if hits.Add(1) <= 2 {
			w.WriteHeader(http.StatusInternalServerError)
		} else {
			// Slow answers keep requests in flight through the grace,
			// while the live thresholds still look.
			time.Sleep(300 * time.Millisecond)
		}
		fmt.Fprint(w, "ok")
	}))
	t.Cleanup(srv.Close)
	dir := t.TempDir()
	planPath := filepath.Join(dir, "flow.hcl")
	os.WriteFile(planPath, []byte(`
target "t" {
  url         = "`+srv.URL+`"
  connections = 40
  timeout     = "20s"
}
scenario "flow" {
  step "a" { path = "/a" }
  step "b" { path = "/b" }
  step "c" { path = "/c" }
}
load {
  stage {
    duration = "4s"
    rate     = 100
  }
}
thresholds {
  error_count = 1
  error_rate  = 0.5
}
`), 0o644)
	runDir := filepath.Join(dir, "run")
	code, stdout, errs := run(t, nil, "apply", planPath, "--out", runDir)
	if code != ExitThresholds {
		t.Fatalf("exit %d, want %d\n%s", code, ExitThresholds, errs)
	}
	if !strings.Contains(stdout, "STOPPED EARLY: error_count: 2 errors > 1 ended the run") {
		t.Errorf("the report's banner does not name what stopped the run:\n%s", stdout)
	}
	if !strings.Contains(errs, "Stopped early by a live threshold: error_count: 2 errors > 1.") {
		t.Errorf("stderr does not name the error count that stopped the run:\n%s", errs)
	}
	if strings.Contains(errs, "error_rate") {
		t.Errorf("stderr names an error rate, but 2 errors of the requests sent is far below 50%%:\n%s", errs)
	}

	var meta struct {
		ExitStatus string   `json:"exit_status"`
		Requests   int64    `json:"requests"`
		Sent       int64    `json:"sent"`
		OK         int64    `json:"ok"`
		Failures   []string `json:"threshold_failures"`
	}
	mj, err := os.ReadFile(filepath.Join(runDir, "meta.json"))
	if err != nil || json.Unmarshal(mj, &meta) != nil {
		t.Fatalf("meta.json: %v\n%s", err, mj)
	}
	if meta.ExitStatus != "early_exit" || meta.Requests != 1200 {
		t.Fatalf("meta.json: exit_status %q, %d requests; want early_exit, 1200", meta.ExitStatus, meta.Requests)
	}
	for _, f := range meta.Failures {
		if strings.HasPrefix(f, "error_rate") || strings.Contains(f, "error_rate:") {
			t.Errorf("meta.json threshold_failures has an error rate failure: %q", meta.Failures)
		}
	}

	out, _ := mustRun(t, 2, "report", runDir, "--format", "json")
	var rep report.Summary
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	notSent := rep.NotSent + rep.Interrupted
	judged := rep.Requests - notSent
	if notSent == 0 || rep.Errors != 2 || rep.OK != judged-2 || rep.OK != meta.OK {
		t.Fatalf("report: %d requests, %d cut off, %d ok (meta.json %d), %d errors; want 2 errors of those judged", rep.Requests, notSent, rep.OK, meta.OK, rep.Errors)
	}
	if want := 2 / float64(judged); rep.ErrorRate != want {
		t.Errorf("report error_rate %v, want 2 / %d judged = %v", rep.ErrorRate, judged, want)
	}
	for _, th := range rep.Thresholds {
		if th.Name == "error_rate" && (!th.OK || th.Actual != 2/float64(judged)) {
			t.Errorf("report threshold %+v, want error_rate ok at 2/%d", th, judged)
		}
	}
}
