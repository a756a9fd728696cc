package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

// A hidden command that panics, registered only in the test binary.
func init() {
	register(func(*env) *cobra.Command {
		return &cobra.Command{Use: "test-panic", Hidden: true, RunE: func(*cobra.Command, []string) error {
			var m map[string]int
			m["boom"]++ // a bug: assignment to a nil map
			return nil
		}}
	})
}

// A panic is an internal error: exit 3, never Go's 2, which would read as
// "thresholds failed".
func TestPanicExitsInternal(t *testing.T) {
	code, _, stderr := run(t, nil, "test-panic")
	if code != ExitInternal || !strings.Contains(stderr, "internal error") || !strings.Contains(stderr, "assignment to entry in nil map") {
		t.Errorf("exit %d, stderr %q; want %d and the panic explained", code, stderr, ExitInternal)
	}
}

// A plan nested 100,000 deep is invalid input: exit 1 with a located
// diagnostic, not a stack overflow.
func TestDeepPlanExitsInvalid(t *testing.T) {
	path := filepath.Join(t.TempDir(), "deep.hcl")
	src := "target \"t\" {\n  url = \"http://127.0.0.1:1\"\n}\nendpoint \"e\" {\n  body = " +
		strings.Repeat("(", 100_000) + "\"x\"" + strings.Repeat(")", 100_000) + "\n}\n"
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, cmd := range []string{"validate", "plan", "apply"} {
		code, _, stderr := run(t, nil, cmd, path)
		if code != ExitInvalid || !strings.Contains(stderr, "Nested too deeply") || !strings.Contains(stderr, "deep.hcl:5:") || len(stderr) > 2000 {
			t.Errorf("%s: exit %d, stderr %.300q; want %d and a located diagnostic", cmd, code, stderr, ExitInvalid)
		}
	}
}

// A typo that asks for 2^31 requests is refused with what to change; the
// flag that says "I mean it" lets a large plan through.
func TestPlanSizeLimitAndFlag(t *testing.T) {
	src := "target \"t\" {\n  url = \"http://127.0.0.1:1\"\n}\nendpoint \"e\" {}\nload {\n  stage {\n    duration = \"1s\"\n    rate     = %s\n  }\n}\n"
	path := filepath.Join(t.TempDir(), "big.hcl")
	os.WriteFile(path, []byte(strings.ReplaceAll(src, "%s", "2147483648")), 0o644)
	code, _, stderr := run(t, nil, "plan", path)
	if code != ExitInvalid || !strings.Contains(stderr, "Schedule too large") || !strings.Contains(stderr, "--max-slots") {
		t.Errorf("plan: exit %d, stderr %q", code, stderr)
	}
	os.WriteFile(path, []byte(strings.ReplaceAll(src, "%s", "2000")), 0o644)
	if code, _, stderr := run(t, nil, "plan", path, "--max-slots", "1000"); code != ExitInvalid {
		t.Errorf("plan --max-slots 1000 of 2000 slots: exit %d, %s", code, stderr)
	}
	if code, _, stderr := run(t, nil, "plan", path, "--max-slots", "2000"); code != 0 {
		t.Errorf("plan --max-slots 2000 of 2000 slots: exit %d, %s", code, stderr)
	}
}
