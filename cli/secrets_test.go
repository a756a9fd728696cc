package cli

import (
	"bytes"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tressi/tressi/exec"
	"github.com/tressi/tressi/results"
)

// writePlan writes src as main.hcl in a fresh directory.
func writePlan(t *testing.T, src string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "main.hcl")
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

const secretVars = `
variable "host" {
  type      = string
  default   = "127.0.0.1"
  sensitive = true
}
variable "port" {
  type      = string
  default   = "1"
  sensitive = true
}
variable "n" {
  type      = number
  default   = 1
  sensitive = true
}
variable "token" {
  type      = string
  default   = "none"
  sensitive = true
}
`

// A sensitive value is in no file, no message and no report: not in a
// .tplan's targets, not in a diagnostic about a bad value, not in a sample
// of a server that echoes it back.
func TestSensitiveValuesLeakNowhere(t *testing.T) {
	const secret = "SECRET123XYZ"
	t.Run("tplan", func(t *testing.T) {
		path := writePlan(t, secretVars+`
target "t" {
  url = "http://${var.host}:18080"
}
endpoint "e" {}
load {
  stage {
    duration = "1s"
    rate     = 1
  }
}`)
		out := filepath.Join(t.TempDir(), "run.tplan")
		if code, _, stderr := run(t, nil, "plan", path, "-out", out, "-var", "host=host"+secret); code != 0 {
			t.Fatalf("plan: exit %d: %s", code, stderr)
		}
		data, _ := os.ReadFile(out)
		if bytes.Contains(data, []byte(secret)) {
			t.Errorf("the .tplan holds the sensitive host %q", secret)
		}
	})
	t.Run("messages", func(t *testing.T) {
		path := writePlan(t, secretVars+`
target "t" {
  url = "http://127.0.0.1:${var.port}"
}
endpoint "e" {
  weight = var.n
}
load {
  stage {
    duration = "1s"
    rate     = 1
  }
}`)
		for _, args := range [][]string{
			{"validate", path, "-var", "port=" + secret},
			{"plan", path, "-var", "n=" + secret},
			{"apply", path, "-var", "port=" + secret, "--out", filepath.Join(t.TempDir(), "r")},
			{"validate", path, "--json", "-var", "n=" + secret},
		} {
			code, stdout, stderr := run(t, []string{"TRESSI_VAR_token=" + secret}, args...)
			if code != ExitInvalid {
				t.Errorf("%s: exit %d, want %d", args[0], code, ExitInvalid)
			}
			if strings.Contains(stdout+stderr, secret) {
				t.Errorf("%s prints the sensitive value:\n%s%s", args[0], stdout, stderr)
			}
		}
	})
	t.Run("echoed by the server", func(t *testing.T) {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("X-Echo", r.Header.Get("Authorization"))
			fmt.Fprintf(w, "you sent %s", r.Header.Get("Authorization"))
		}))
		defer srv.Close()
		path := writePlan(t, secretVars+fmt.Sprintf(`
target "t" {
  url = %q
}
endpoint "e" {
  headers = { Authorization = "Bearer ${var.token}" }
}
load {
  stage {
    duration = "1s"
    rate     = 2
  }
}`, srv.URL))
		dir := filepath.Join(t.TempDir(), "run")
		if code, _, stderr := run(t, nil, "apply", path, "-var", "token="+secret, "--out", dir, "--quiet"); code != 0 {
			t.Fatalf("apply: exit %d: %s", code, stderr)
		}
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
			if strings.Contains(s.Headers, secret) || bytes.Contains(s.Body, []byte(secret)) {
				t.Errorf("samples.arrow holds the echoed secret: %q %q", s.Headers, s.Body)
			}
		}
		for _, format := range []string{"json", "text", "html", "md"} {
			_, stdout, _ := run(t, nil, "report", dir, "--format", format)
			if strings.Contains(stdout, secret) {
				t.Errorf("the %s report holds the echoed secret", format)
			}
		}
		for _, name := range []string{exec.MetaFile, exec.PlanFile, exec.ResultsFile} {
			data, _ := os.ReadFile(filepath.Join(dir, name))
			if bytes.Contains(data, []byte(secret)) {
				t.Errorf("%s holds the secret", name)
			}
		}
	})
}
