package cli

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tressi/tressi/plan"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// run runs the CLI in-process and returns its exit code and output.
func run(t *testing.T, env []string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = Main(args, env, strings.NewReader(""), &out, &errb)
	return code, out.String(), errb.String()
}

// golden compares got with testdata/name, or rewrites it under -update.
func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("output differs from %s (go test -update rewrites it):\n--- got\n%s\n--- want\n%s", path, got, want)
	}
}

func TestValidateValid(t *testing.T) {
	code, out, errs := run(t, nil, "validate", "../examples/quickstart.hcl")
	if code != ExitOK || out != "The plan is valid.\n" || errs != "" {
		t.Errorf("exit %d, stdout %q, stderr %q", code, out, errs)
	}
}

func TestValidateInvalidText(t *testing.T) {
	code, out, errs := run(t, nil, "validate", "testdata/invalid.hcl")
	if code != ExitInvalid || out != "" {
		t.Errorf("exit %d, stdout %q", code, out)
	}
	if strings.Contains(errs, "not-for-your-eyes") {
		t.Error("a sensitive default was printed")
	}
	golden(t, "validate_invalid.txt", errs)
}

func TestValidateInvalidJSON(t *testing.T) {
	code, out, errs := run(t, nil, "validate", "--json", "testdata/invalid.hcl")
	if code != ExitInvalid || errs != "" {
		t.Errorf("exit %d, stderr %q", code, errs)
	}
	var diags []jsonDiagnostic
	if err := json.Unmarshal([]byte(out), &diags); err != nil {
		t.Fatalf("stdout is not a JSON array of diagnostics: %v\n%s", err, out)
	}
	if len(diags) != 3 || diags[0].Range == nil || diags[0].Range.Start.Line != 8 {
		t.Errorf("diagnostics = %+v", diags)
	}
	golden(t, "validate_invalid.json", out)
}

func TestValidateValidJSONIsEmptyArray(t *testing.T) {
	code, out, _ := run(t, nil, "validate", "--json", "../examples/quickstart.hcl")
	if code != ExitOK || strings.TrimSpace(out) != "[]" {
		t.Errorf("exit %d, stdout %q", code, out)
	}
}

func TestValidateWarningsStillValid(t *testing.T) {
	code, out, errs := run(t, nil, "validate", "testdata/queue.hcl")
	if code != ExitOK || out != "The plan is valid.\n" {
		t.Errorf("exit %d, stdout %q", code, out)
	}
	golden(t, "validate_warning.txt", errs)
}

// TestVarOrder: -var and -var-file apply in command-line order, and
// TRESSI_VAR_* comes before both.
func TestVarOrder(t *testing.T) {
	good := "base_url=http://127.0.0.1:9"
	for _, tc := range []struct {
		name string
		env  []string
		args []string
		code int
	}{
		{"unset", nil, nil, ExitInvalid},
		{"env", []string{"TRESSI_VAR_base_url=http://127.0.0.1:9"}, nil, ExitOK},
		{"file then var", nil, []string{"-var-file", "testdata/bad.tfvars", "-var", good}, ExitOK},
		{"var then file", nil, []string{"-var", good, "-var-file", "testdata/bad.tfvars"}, ExitInvalid},
		{"var over env", []string{"TRESSI_VAR_base_url=ftp://x"}, []string{"-var=" + good}, ExitOK},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := append([]string{"validate", "testdata/vars.hcl"}, tc.args...)
			code, _, errs := run(t, tc.env, args...)
			if code != tc.code {
				t.Errorf("exit %d, want %d; stderr:\n%s", code, tc.code, errs)
			}
		})
	}
}

func TestValidateMissingDefaultPlan(t *testing.T) {
	code, _, errs := run(t, nil, "validate")
	if code != ExitInvalid || !strings.Contains(errs, "Plan not found") || !strings.Contains(errs, "tressi init") {
		t.Errorf("exit %d, stderr %q", code, errs)
	}
}

func TestInitWritesAValidPlan(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "new", "dir")
	code, out, errs := run(t, nil, "init", dir)
	if code != ExitOK || !strings.Contains(out, "Wrote") {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, out, errs)
	}
	path := filepath.Join(dir, "tressi.hcl")
	p, _, diags := plan.Load(plan.Options{Path: path})
	if len(diags) != 0 || p == nil {
		t.Fatalf("the starter plan should load without any diagnostic: %v", diags)
	}
	if len(p.Endpoints) != 2 || p.Load.Model != plan.ModelOpen || p.Thresholds == nil || p.Load.Stages[0].To == p.Load.Stages[0].From {
		t.Errorf("starter plan should show two endpoints, an open ramp and thresholds: %+v", p)
	}
	if code, _, _ := run(t, nil, "validate", path); code != ExitOK {
		t.Errorf("tressi validate on the starter plan: exit %d", code)
	}
}

func TestInitNeverOverwrites(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "tressi.hcl")
	if err := os.WriteFile(path, []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, errs := run(t, nil, "init", dir)
	if code != ExitInvalid || !strings.Contains(errs, "already exists") {
		t.Errorf("exit %d, stderr %q", code, errs)
	}
	if b, _ := os.ReadFile(path); string(b) != "mine" {
		t.Errorf("file was overwritten: %q", b)
	}
}

func TestTerraformStyleFlags(t *testing.T) {
	got := terraformStyleFlags([]string{"validate", "-var", "a=-b", "-var-file=x", "--json", "-h", "-1", "--", "-var"})
	want := []string{"validate", "--var", "a=-b", "--var-file=x", "--json", "-h", "-1", "--", "-var"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("got %q, want %q", got, want)
	}
}

// TestInitPlanIsQuickAndSaysHowToScale: a first run finishes in seconds,
// and both the message and the plan say how to make it bigger.
func TestInitPlanIsQuickAndSaysHowToScale(t *testing.T) {
	dir := t.TempDir()
	code, out, _ := run(t, nil, "init", dir)
	path := filepath.Join(dir, "tressi.hcl")
	if code != ExitOK || !strings.Contains(out, "a 5-second run") || !strings.Contains(out, "tressi apply "+path+" --var rate=500 --var duration=1m") {
		t.Fatalf("exit %d, stdout %q", code, out)
	}
	for _, tc := range []struct {
		vars     []string
		duration float64
	}{
		{nil, 5},
		{[]string{"--var", "rate=500", "--var", "duration=1m"}, 61},
	} {
		s := planSummary(t, append([]string{path}, tc.vars...)...)
		if s.DurationS != tc.duration || s.Requests == 0 {
			t.Errorf("%v: %d requests over %gs; want %gs", tc.vars, s.Requests, s.DurationS, tc.duration)
		}
	}
}
