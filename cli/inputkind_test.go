package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tressi/tressi/report/synth"
)

// TestBinaryInputsSayWhatTheyAre: a .tplan, a results file or any binary
// file given where a plan goes is named in one line, never parsed as HCL
// (which printed thousands of "Invalid character" errors and the bytes).
func TestBinaryInputsSayWhatTheyAre(t *testing.T) {
	dir := t.TempDir()
	tplan := filepath.Join(dir, "run.tplan")
	if code, _, errs := run(t, nil, "plan", "../examples/quickstart.hcl", "--out", tplan); code != ExitOK {
		t.Fatalf("plan --out: exit %d: %s", code, errs)
	}
	noSuffix := filepath.Join(dir, "schedule.bin")
	copyFile(t, tplan, noSuffix)
	rundir := filepath.Join(dir, "run")
	if _, err := synth.WriteRun(rundir, synth.Spec{Rows: 500, Seed: 1, Rate: 100}); err != nil {
		t.Fatal(err)
	}
	results := filepath.Join(rundir, "results.arrow")
	binary := filepath.Join(dir, "image.png")
	if err := os.WriteFile(binary, []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"), 0o644); err != nil {
		t.Fatal(err)
	}
	latin1 := filepath.Join(dir, "latin1.hcl")
	if err := os.WriteFile(latin1, []byte("# caf\xe9\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"validate", tplan}, tplan + " is a compiled schedule (.tplan), not a plan source: `tressi plan " + tplan + "` summarises it"},
		{[]string{"validate", results}, results + " is a tressi results file (Arrow IPC), not a plan: `tressi report " + rundir + "`"},
		{[]string{"plan", results}, "is a tressi results file"},
		{[]string{"validate", filepath.Join(rundir, "samples.arrow")}, "samples.arrow is a tressi samples file (Arrow IPC), not a plan"},
		{[]string{"apply", results}, "is a tressi results file"},
		{[]string{"validate", binary}, binary + " is a binary file, not a plan"},
		{[]string{"validate", latin1}, latin1 + " is a binary file, not a plan"},
	} {
		t.Run(strings.Join(tc.args[:1], " ")+" "+filepath.Base(tc.args[1]), func(t *testing.T) {
			code, out, errs := run(t, nil, tc.args...)
			if code != ExitInvalid || out != "" {
				t.Errorf("exit %d, stdout %q; want 1 and nothing", code, out)
			}
			if !strings.Contains(errs, tc.want) || strings.Count(strings.TrimSpace(errs), "\n") != 0 {
				t.Errorf("stderr should be the one line %q, got:\n%s", tc.want, errs)
			}
		})
	}
	for _, tc := range []struct{ path, want string }{
		{tplan, tplan + " is a compiled schedule (.tplan), not results: `tressi plan " + tplan + "` summarises it"},
		{filepath.Join(rundir, "samples.arrow"), "holds a run's sampled responses, not its results: `tressi report " + rundir + "` reads both"},
		{"../examples/quickstart.hcl", "is text, not a results file: `tressi apply ../examples/quickstart.hcl` runs a plan"},
		{binary, binary + " is not a results file"},
	} {
		code, out, errs := run(t, nil, "report", tc.path)
		if code != ExitInvalid || out != "" || !strings.Contains(errs, tc.want) || strings.Count(strings.TrimSpace(errs), "\n") != 0 {
			t.Errorf("report %s: exit %d; want 1 and the one line %q, got:\n%s", tc.path, code, tc.want, errs)
		}
	}
	if code, _, errs := run(t, nil, "report", results); code != ExitOK {
		t.Errorf("report of a results file: exit %d: %s", code, errs)
	}
	for _, path := range []string{tplan, noSuffix} {
		code, out, errs := run(t, nil, "plan", path)
		if code != ExitOK || !strings.HasPrefix(out, path+" is a compiled schedule (.tplan); run it with: tressi apply "+path+"\n") ||
			!strings.Contains(out, "requests   820 over 5s") || !strings.Contains(out, "schedule   sha256:") {
			t.Errorf("plan %s: exit %d\n%s%s", path, code, out, errs)
		}
	}
	code, out, _ := run(t, nil, "plan", "--json", tplan)
	if code != ExitOK || !strings.Contains(out, `"requests": 820`) {
		t.Errorf("plan --json of a .tplan: exit %d\n%s", code, out)
	}
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, b, 0o644); err != nil {
		t.Fatal(err)
	}
}
