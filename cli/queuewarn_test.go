package cli

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestQueueWarningOnceAndNotWhenQuiet: the queueing warning is printed once,
// at the start of a line, by plan and apply, and never with --quiet.
func TestQueueWarningOnceAndNotWhenQuiet(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	defer srv.Close()
	dir := t.TempDir()
	planFile := filepath.Join(dir, "q.hcl")
	// 20 req/s answered in a stated 200ms need 4 connections; 1 is too few.
	src := fmt.Sprintf(`
target "api" {
  url              = %q
  connections      = 1
  expected_latency = "200ms"
}
endpoint "home" {}
load {
  stage {
    duration = "500ms"
    rate     = 20
  }
}
`, srv.URL)
	if err := os.WriteFile(planFile, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	const warning = "Warning: Requests will queue for connections\n"
	code, out, errs := run(t, nil, "plan", planFile)
	if code != ExitOK || strings.Count(errs, "Warning:") != 1 || !strings.HasPrefix(errs, warning) || !strings.HasSuffix(errs, "\n") {
		t.Errorf("plan: exit %d; want the warning once, on its own lines; stderr:\n%s", code, errs)
	}
	if strings.Contains(out, "Warning") || !strings.HasSuffix(out, "\n") {
		t.Errorf("plan: stdout should be the summary alone, ending its line:\n%q", out)
	}
	code, out, errs = run(t, nil, "apply", planFile, "--out", filepath.Join(dir, "run1"))
	if code != ExitOK || strings.Count(errs, "Warning:") != 1 || !strings.Contains(strings.Join(strings.Fields(errs), " "), "Raise connections to at least 4") {
		t.Errorf("apply: exit %d; want the warning once; stderr:\n%s", code, errs)
	}
	code, out, errs = run(t, nil, "apply", planFile, "--quiet", "--out", filepath.Join(dir, "run2"))
	if code != ExitOK || out != "" || errs != "" {
		t.Errorf("apply --quiet: exit %d, stdout %q, stderr %q; want nothing at all", code, out, errs)
	}
}
