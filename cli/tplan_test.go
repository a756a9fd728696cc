package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tressi/tressi/testserver"
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
	srv, addr, err := testserver.StartLoopback(t)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	planFile := filepath.Join(dir, "secret.hcl")
	os.WriteFile(planFile, []byte(sensitivePlan), 0o644)
	token := testserver.New(testserver.Options{}).Token("alice")
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

// The README's flow: plan -out, then apply the .tplan, whole or as shards
// that tressi report merges back into the whole.
func TestApplyTPlanWholeAndSharded(t *testing.T) {
	srv, addr, err := testserver.StartLoopback(t)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	planFile := filepath.Join(dir, "p.hcl")
	os.WriteFile(planFile, []byte(`
variable "u" { type = string }
target "t" {
  url         = var.u
  connections = 16
  timeout     = "1s"
}
endpoint "a" { path = "/" }
endpoint "b" { path = "/status/201" }
load {
  stage {
    duration = "1s"
    rate     = 200
  }
}
`), 0o644)
	tplan := filepath.Join(dir, "run.tplan")
	if code, out, errs := run(t, nil, "plan", planFile, "-var", "u=http://"+addr, "-out", tplan); code != ExitOK {
		t.Fatalf("plan: exit %d\n%s%s", code, out, errs)
	}
	requests := func(args ...string) int64 {
		t.Helper()
		code, out, errs := run(t, nil, args...)
		if code != ExitOK && code != ExitThresholds {
			t.Fatalf("%v: exit %d\n%s", args, code, errs)
		}
		var rep struct{ Requests int64 }
		if err := json.Unmarshal([]byte(out), &rep); err != nil {
			t.Fatalf("%v: %v in %q", args, err, out)
		}
		return rep.Requests
	}
	if n := requests("apply", tplan, "--json", "--out", filepath.Join(dir, "whole")); n != 200 {
		t.Fatalf("the .tplan replayed %d requests, want 200", n)
	}
	for i := range 2 {
		shard := fmt.Sprintf("%d/2", i)
		if n := requests("apply", tplan, "--json", "--shard", shard, "--out", filepath.Join(dir, fmt.Sprint("s", i))); n != 100 {
			t.Fatalf("shard %s ran %d requests, want 100", shard, n)
		}
	}
	if n := requests("report", "--format", "json", filepath.Join(dir, "s0"), filepath.Join(dir, "s1")); n != 200 {
		t.Fatalf("the merged shards hold %d requests, want 200", n)
	}
	if got := srv.Stats().Requests; got != 400 {
		t.Fatalf("the server saw %d requests, want 400 (whole run + two shards)", got)
	}
}
