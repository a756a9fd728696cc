package cli

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/tressi/tressi/exec"
	"github.com/tressi/tressi/results"
)

// basic_auth sends RFC 7617 credentials the server accepts, from a target
// or an endpoint (the endpoint's replacing the target's), and neither the
// password nor its base64 form is in any file of the run or any report,
// even when the server echoes the header back.
func TestBasicAuthReachesTheServerAndLeaksNowhere(t *testing.T) {
	const password = "S3cret-Pass!word"
	var good, bad atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		user, pass, ok := r.BasicAuth()
		want := map[string]string{"/t": "alice", "/e": "bob"}[r.URL.Path]
		if !ok || user != want || pass != password {
			bad.Add(1)
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		good.Add(1)
		w.Header().Set("X-Echo", r.Header.Get("Authorization"))
		fmt.Fprintf(w, "you sent %s", r.Header.Get("Authorization"))
	}))
	defer srv.Close()
	path := writePlan(t, fmt.Sprintf(`
variable "pass" {
  type      = string
  sensitive = true
}
target "api" {
  url        = %q
  basic_auth = { username = "alice", password = var.pass }
}
endpoint "target_creds" {
  path = "/t"
}
endpoint "own_creds" {
  path       = "/e"
  basic_auth = { username = "bob", password = var.pass }
}
load {
  stage {
    duration = "1s"
    rate     = 10
  }
}`, srv.URL))
	dir := filepath.Join(t.TempDir(), "run")
	if code, out, stderr := run(t, nil, "apply", path, "-var", "pass="+password, "--out", dir, "--quiet"); code != ExitOK {
		t.Fatalf("apply: exit %d: %s%s", code, out, stderr)
	}
	if good.Load() != 10 || bad.Load() != 0 {
		t.Fatalf("the server accepted %d requests and refused %d, want 10 and 0", good.Load(), bad.Load())
	}
	secrets := []string{password, base64.StdEncoding.EncodeToString([]byte("alice:" + password)), base64.StdEncoding.EncodeToString([]byte("bob:" + password))}
	leak := func(where string, b []byte) {
		for _, s := range secrets {
			if bytes.Contains(b, []byte(s)) {
				t.Errorf("%s holds %q", where, s)
			}
		}
	}
	f, err := os.Open(filepath.Join(dir, exec.SamplesFile))
	if err != nil {
		t.Fatal(err)
	}
	samples, err := results.ReadSamples(f)
	f.Close()
	if err != nil || len(samples) != 2 {
		t.Fatalf("samples: %v, %d rows, want 2", err, len(samples))
	}
	for _, s := range samples {
		if !strings.Contains(s.Headers, "X-Echo: Basic (sensitive)") {
			t.Errorf("the sample's headers do not show the redacted echo:\n%s", s.Headers)
		}
		leak("samples.arrow", []byte(s.Headers))
		leak("samples.arrow", s.Body)
	}
	for _, format := range []string{"json", "text", "html", "md"} {
		_, stdout, _ := run(t, nil, "report", dir, "--format", format)
		leak("the "+format+" report", []byte(stdout))
	}
	for _, name := range []string{exec.MetaFile, exec.PlanFile, exec.ResultsFile} {
		data, _ := os.ReadFile(filepath.Join(dir, name))
		leak(name, data)
	}
}
