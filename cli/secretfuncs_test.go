package cli

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tressi/tressi/exec"
	"github.com/tressi/tressi/results"
	"github.com/tressi/tressi/testserver"
)

// A value computed from a sensitive one is sensitive too: cty's mark
// survives base64encode, upper and jsonencode, and what the mark covers is
// in no file and no report, even when the built-in target's /echo sends
// headers, body and URI back. The base64 of "user:pass" was once printed
// by report --format json and kept in samples.arrow.
func TestSensitiveValuesLeakNowhereThroughFunctions(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := testserver.New(testserver.Options{})
	go srv.Serve(ln)
	defer srv.Close()
	const pass = "alice123"
	derived := []string{
		base64.StdEncoding.EncodeToString([]byte("alice:" + pass)), // the header
		strings.ToUpper(pass), // inside the JSON body
		base64.StdEncoding.EncodeToString([]byte(strings.ToUpper(pass))), // in the query
	}
	path := writePlan(t, fmt.Sprintf(`
variable "user" {
  default = "alice"
}
variable "pass" {
  sensitive = true
}
target "t" {
  url = "http://%s"
}
endpoint "echo" {
  method  = "POST"
  path    = "/echo?sig=${base64encode(upper(var.pass))}"
  headers = { Authorization = "Basic ${base64encode("${var.user}:${var.pass}")}", "X-Plain" = "visible" }
  body    = jsonencode({ secret = upper(var.pass), n = "${seq}" })
}
load {
  stage {
    duration = "500ms"
    rate     = 10
  }
}
`, ln.Addr()))
	dir := filepath.Join(t.TempDir(), "run")
	code, stdout, stderr := run(t, nil, "apply", path, "-var", "pass="+pass, "--out", dir)
	if code != 0 {
		t.Fatalf("apply: exit %d: %s", code, stderr)
	}
	leaks := func(what string, b []byte) {
		t.Helper()
		for _, d := range append(derived, pass) {
			if bytes.Contains(b, []byte(d)) {
				t.Errorf("%s holds %q, derived from the sensitive pass", what, d)
			}
		}
	}
	leaks("apply's output", []byte(stdout+stderr))
	f, err := os.Open(filepath.Join(dir, exec.SamplesFile))
	if err != nil {
		t.Fatal(err)
	}
	samples, err := results.ReadSamples(f)
	f.Close()
	if err != nil || len(samples) == 0 {
		t.Fatalf("samples: %v, %d", err, len(samples))
	}
	for _, s := range samples {
		leaks("samples.arrow", []byte(s.Headers+s.Detail+string(s.Body)))
		if !bytes.Contains(s.Body, []byte("visible")) {
			t.Errorf("the sample lost what is not sensitive: %q", s.Body)
		}
	}
	for _, format := range []string{"json", "text", "html", "md"} {
		_, stdout, _ := run(t, nil, "report", dir, "--format", format)
		leaks("the "+format+" report", []byte(stdout))
	}
	for _, name := range []string{exec.MetaFile, exec.PlanFile, exec.ResultsFile} {
		data, _ := os.ReadFile(filepath.Join(dir, name))
		leaks(name, data)
	}
}
