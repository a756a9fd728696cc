package cli

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/tressi/tressi/exec"
)

// Per-request values in a path reach the server as a valid request-target:
// row values with spaces, non-ASCII and '#' are percent-encoded, and
// urlencode(row.q) is filled query-escaped. Both engines, and a replay of the
// .tplan, send exactly these URIs.
func TestApplyEscapesPerRequestValuesInPath(t *testing.T) {
	var mu sync.Mutex
	seen := map[string]int{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen[r.RequestURI]++
		mu.Unlock()
	}))
	defer srv.Close()
	if !strings.HasPrefix(srv.URL, "http://127.0.0.1:") {
		t.Fatalf("server at %s, want 127.0.0.1", srv.URL)
	}
	got := func() string {
		mu.Lock()
		defer mu.Unlock()
		var lines []string
		for uri, n := range seen {
			lines = append(lines, fmt.Sprintf("%d %s", n, uri))
		}
		sort.Strings(lines)
		seen = map[string]int{}
		return strings.Join(lines, "\n")
	}

	dir := t.TempDir()
	csv := "name,q\n" +
		"John Doe,a b&c=d\n" +
		"Zoë #1,café/thé?\n" +
		"x%2Fy|z,plain\n"
	if err := os.WriteFile(filepath.Join(dir, "users.csv"), []byte(csv), 0o644); err != nil {
		t.Fatal(err)
	}
	planFile := filepath.Join(dir, "p.hcl")
	if err := os.WriteFile(planFile, []byte(fmt.Sprintf(`
target "api" {
  url         = "%s"
  connections = 2
}
data "users" { csv = "users.csv" }
endpoint "u" {
  path = "/u/${row.name}?q=${urlencode(row.q)}"
}
load {
  stage {
    duration = "1s"
    rate     = 30
  }
}
`, srv.URL)), 0o644); err != nil {
		t.Fatal(err)
	}
	want := strings.Join([]string{
		"10 /u/John%20Doe?q=a+b%26c%3Dd",
		"10 /u/Zo%C3%AB%20%231?q=caf%C3%A9%2Fth%C3%A9%3F",
		"10 /u/x%2Fy%7Cz?q=plain",
	}, "\n")

	for _, engine := range []string{exec.EngineLoop, exec.EngineFasthttp} {
		code, out, errs := run(t, nil, "apply", planFile, "--quiet", "--engine", engine, "--out", filepath.Join(dir, "run-"+engine))
		if code != ExitOK {
			t.Fatalf("%s: exit %d\n%s\n%s", engine, code, out, errs)
		}
		if g := got(); g != want {
			t.Errorf("%s: the server saw\n%s\nwant\n%s", engine, g, want)
		}
	}

	tplan := filepath.Join(dir, "run.tplan")
	if code, out, errs := run(t, nil, "plan", planFile, "-out", tplan); code != ExitOK {
		t.Fatalf("plan: exit %d\n%s%s", code, out, errs)
	}
	if code, out, errs := run(t, nil, "apply", tplan, "--quiet", "--out", filepath.Join(dir, "replay")); code != ExitOK {
		t.Fatalf("replay: exit %d\n%s%s", code, out, errs)
	}
	if g := got(); g != want {
		t.Errorf("replay: the server saw\n%s\nwant\n%s", g, want)
	}
}
