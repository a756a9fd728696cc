package cli

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestCompletionScriptsAreValid: the scripts the README tells users to
// install parse in their shells (each shell that is installed here).
func TestCompletionScriptsAreValid(t *testing.T) {
	for _, shell := range []string{"bash", "zsh", "fish"} {
		t.Run(shell, func(t *testing.T) {
			code, out, errs := run(t, nil, "completion", shell)
			if code != ExitOK || !strings.Contains(out, "tressi") {
				t.Fatalf("exit %d: %s", code, errs)
			}
			bin, err := exec.LookPath(shell)
			if err != nil {
				t.Skipf("%s is not installed, so its script was generated but not parsed", shell)
			}
			script := filepath.Join(t.TempDir(), "tressi."+shell)
			if err := os.WriteFile(script, []byte(out), 0o644); err != nil {
				t.Fatal(err)
			}
			if b, err := exec.Command(bin, "-n", script).CombinedOutput(); err != nil {
				t.Errorf("%s -n: %v\n%s", shell, err, b)
			}
		})
	}
}

// TestCompletionOffersFlagsAndFiles: what the installed script asks tressi
// for when the user presses Tab after `tressi apply --`.
func TestCompletionOffersFlagsAndFiles(t *testing.T) {
	_, out, _ := run(t, nil, "__complete", "apply", "--")
	for _, want := range []string{"--out", "--quiet", "--var", "--shard"} {
		if !strings.Contains(out, want) {
			t.Errorf("completing `tressi apply --` lacks %s:\n%s", want, out)
		}
	}
	_, out, _ = run(t, nil, "__complete", "")
	for _, want := range []string{"apply", "plan", "report", "validate"} {
		if !strings.Contains(out, want) {
			t.Errorf("completing `tressi ` lacks %s:\n%s", want, out)
		}
	}
}
