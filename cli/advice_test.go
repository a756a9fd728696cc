package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// apply on a directory without a plan says what to run instead: a run
// directory's plan.tplan (it used to suggest `tressi init RUN_DIR`), a
// directory's compiled schedule, or a starter plan for an empty one.
func TestApplyOnADirectoryWithoutAPlanPointsAtWhatToRun(t *testing.T) {
	for _, tc := range []struct {
		name  string
		files []string
		want  string
	}{
		{"a run directory", []string{"plan.tplan", "meta.json", "results.arrow", "samples.arrow"}, "`tressi apply DIR/plan.tplan`; to read its results, `tressi report DIR`"},
		{"a compiled schedule", []string{"nightly.tplan"}, "run it with `tressi apply DIR/nightly.tplan`"},
		{"an empty directory", nil, "Run `tressi init DIR` to write a starter plan there."},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			for _, f := range tc.files {
				if err := os.WriteFile(filepath.Join(dir, f), nil, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			code, _, errs := run(t, nil, "apply", dir)
			want := strings.ReplaceAll(tc.want, "DIR", dir)
			// The diagnostic's detail is wrapped at spaces: compare words.
			if code != ExitInvalid || !strings.Contains(strings.Join(strings.Fields(errs), " "), want) {
				t.Fatalf("exit %d, want %d and %q in:\n%s", code, ExitInvalid, want, errs)
			}
			if tc.files != nil && strings.Contains(errs, "tressi init") {
				t.Fatalf("suggests init for a directory with a schedule:\n%s", errs)
			}
		})
	}
}

// apply --help says what each engine runs: TLS and scenarios run on the
// loop (the help said fasthttp).
func TestEngineHelpSaysWhatEachEngineRuns(t *testing.T) {
	_, out, _ := run(t, nil, "apply", "--help")
	help := strings.Join(strings.Fields(out), " ")
	for _, want := range []string{"loop (one epoll loop per core: HTTP/1.1, HTTP/2, TLS, scenarios, WebSocket)", "no HTTP/2"} {
		if !strings.Contains(help, want) {
			t.Errorf("apply --help lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(help, "fasthttp (TLS, scenarios)") {
		t.Errorf("apply --help still sends TLS and scenarios to fasthttp:\n%s", out)
	}
}
