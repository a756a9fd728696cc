package cli

import (
	"fmt"
	"net/http"
	"net/http/httptest"
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
    rate     = 20
  }
}`, srv.URL))
	out := filepath.Join(t.TempDir(), "run")
	cmd := osexec.Command("sh", "-c", `ulimit -n 64 && exec "$0" apply "$1" --out "$2" --quiet`, bin, plan, out)
	stderr, _ := cmd.CombinedOutput()
	if !strings.Contains(string(stderr), "open-file limit") || !strings.Contains(string(stderr), "500") || !strings.Contains(string(stderr), "ulimit -n") {
		t.Errorf("no up-front warning about the file limit:\n%s", stderr)
	}
}
