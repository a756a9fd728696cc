package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tressi/tressi/target"
)

const sensitivePlan = `
variable "base_url" {
  type = string
}
variable "token" {
  type      = string
  sensitive = true
}
target "api" {
  url = var.base_url
}
endpoint "me" {
  path    = "/me"
  headers = { Authorization = "Bearer ${var.token}" }
}
load {
  stage {
    duration = "1s"
    rate     = 20
  }
}
`

// A .tplan never holds a secret; replaying it takes the secret again and
// recompiles the stored sources into the planned schedule.
func TestTPlanWithSensitiveVariableReplays(t *testing.T) {
	srv, addr, err := target.StartLoopback(t)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	planFile := filepath.Join(dir, "secret.hcl")
	os.WriteFile(planFile, []byte(sensitivePlan), 0o644)
	token := target.New(target.Options{}).Token("alice")
	tplan := filepath.Join(dir, "run.tplan")
	base := "base_url=http://" + addr
	if code, out, errs := run(t, nil, "plan", planFile, "-var", base, "-var", "token="+token, "-out", tplan); code != ExitOK {
		t.Fatalf("plan: exit %d\n%s%s", code, out, errs)
	}
	raw, _ := os.ReadFile(tplan)
	if bytes.Contains(raw, []byte(token)) {
		t.Fatal("the .tplan holds the sensitive token")
	}

	code, _, errs := run(t, nil, "apply", tplan, "--quiet", "--out", filepath.Join(dir, "no-secret"))
	if code != ExitInvalid || !strings.Contains(errs, "token") {
		t.Fatalf("apply without the secret: exit %d, stderr %q", code, errs)
	}

	code, out, errs := run(t, []string{"TRESSI_VAR_token=" + token}, "apply", tplan, "--quiet", "--out", filepath.Join(dir, "run"))
	if code != ExitOK || strings.Contains(errs, "Warning") {
		t.Fatalf("apply with the secret: exit %d\n%s%s", code, out, errs)
	}
	if got := srv.Stats().Routes["me"]; got != 20 {
		t.Fatalf("server saw %d /me requests, want 20", got)
	}
	meta, _ := os.ReadFile(filepath.Join(dir, "run", "meta.json"))
	copied, _ := os.ReadFile(filepath.Join(dir, "run", "plan.tplan"))
	if bytes.Contains(meta, []byte(token)) || bytes.Contains(copied, []byte(token)) {
		t.Fatal("the run directory holds the sensitive token")
	}
}
