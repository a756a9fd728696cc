package cli

import (
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// closedPort returns a loopback address nothing listens on.
func closedPort(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return addr
}

// TestEveryRequestFailedExits2: a run where no request succeeded says so
// first and exits 2 without any threshold, unless the plan allows it.
func TestEveryRequestFailedExits2(t *testing.T) {
	dir := t.TempDir()
	write := func(name, thresholds string) string {
		path := filepath.Join(dir, name)
		src := fmt.Sprintf("target \"api\" {\n  url = \"http://%s\"\n}\nendpoint \"home\" {}\nload {\n  stage {\n    duration = \"500ms\"\n    rate     = 20\n  }\n}\n%s", closedPort(t), thresholds)
		if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	bare := write("bare.hcl", "")
	allowed := write("allowed.hcl", "thresholds {\n  allow_all_failed = true\n}\n")

	code, out, errs := run(t, nil, "apply", bare, "--out", filepath.Join(dir, "r1"))
	if code != ExitThresholds || !strings.HasPrefix(out, "FAILED: NONE OF THE 10 REQUESTS SUCCEEDED\n  what they got: connect_refused 10\n") {
		t.Errorf("exit %d (want 2); stdout:\n%s\nstderr:\n%s", code, out, errs)
	}
	if !strings.Contains(out, "  corrected    –     –") {
		t.Errorf("latency without a sample should read –:\n%s", out)
	}
	if code, out, _ := run(t, nil, "apply", bare, "--quiet", "--out", filepath.Join(dir, "r2")); code != ExitThresholds || out != "" {
		t.Errorf("--quiet: exit %d, stdout %q; want 2 and nothing", code, out)
	}
	code, out, _ = run(t, nil, "apply", bare, "--json", "--out", filepath.Join(dir, "r3"))
	if code != ExitThresholds || !strings.Contains(out, `"name": "all_failed"`) {
		t.Errorf("--json: exit %d; want 2 and the all_failed check:\n%s", code, out)
	}
	code, out, errs = run(t, nil, "apply", allowed, "--out", filepath.Join(dir, "r4"))
	if code != ExitOK || strings.Contains(out, "NONE OF THE") {
		t.Errorf("allow_all_failed: exit %d (want 0)\n%s%s", code, out, errs)
	}
}
