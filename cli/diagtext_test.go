package cli

import (
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
)

func TestCaretLine(t *testing.T) {
	rng := func(l1, c1, l2, c2 int) hcl.Range {
		return hcl.Range{Start: hcl.Pos{Line: l1, Column: c1}, End: hcl.Pos{Line: l2, Column: c2}}
	}
	for _, tc := range []struct {
		name, line string
		r          hcl.Range
		want       string
	}{
		{"one column", "  connections = 0", rng(1, 17, 1, 18), "                ^"},
		{"a word", "  weight = -1", rng(1, 12, 1, 14), "           ^^"},
		{"empty range still marks", "abc", rng(1, 2, 1, 2), " ^"},
		{"tabs line up", "\tx = 1", rng(1, 2, 1, 3), "\t^"},
		{"several lines: to the end of the first", "load {", rng(1, 1, 5, 2), "^^^^^^"},
		{"past the end", "ab", rng(1, 9, 1, 12), "  ^"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := caretLine(tc.line, tc.r); got != tc.want {
				t.Errorf("caretLine(%q) = %q, want %q", tc.line, got, tc.want)
			}
		})
	}
}

// TestValidateShowsColumnAndCaret: what the README promises, file:line:column,
// with the source line and a caret under the mistake.
func TestValidateShowsColumnAndCaret(t *testing.T) {
	code, _, errs := run(t, nil, "validate", "testdata/invalid.hcl")
	want := "  on testdata/invalid.hcl:8:17, in target \"api\":\n   8:   connections = 0\n                      ^\n"
	if code != ExitInvalid || !strings.Contains(errs, want) {
		t.Errorf("exit %d; stderr lacks\n%s\ngot:\n%s", code, want, errs)
	}
}

// TestVarNotANumber: -var rate=fast on a number variable says so, pointing
// at the value.
func TestVarNotANumber(t *testing.T) {
	code, _, errs := run(t, nil, "validate", "testdata/ux/numvar.hcl", "-var", "rate=fast")
	for _, want := range []string{
		"Error: Invalid value for variable\n",
		"  on <value for var.rate>:1:1:\n   1: fast\n      ^^^^\n",
		"Invalid value for variable rate: a number is required",
		"-var rate=50",
	} {
		if !strings.Contains(errs, want) {
			t.Errorf("stderr lacks %q:\n%s", want, errs)
		}
	}
	if code != ExitInvalid || strings.Contains(errs, "Variables not allowed") {
		t.Errorf("exit %d:\n%s", code, errs)
	}
}
