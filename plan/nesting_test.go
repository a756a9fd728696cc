package plan

import (
	"strings"
	"testing"
	"testing/fstest"
)

// Hostile nesting must end in a located diagnostic, never in a Go stack
// overflow (a fatal error no recover catches, exit status 2). Sizes are
// those that overflowed before the bound.
func TestDeepNestingIsADiagnostic(t *testing.T) {
	const base = "target \"t\" {\n  url = \"http://127.0.0.1:1\"\n}\nvariable \"n\" {\n  type    = number\n  default = 1\n}\n"
	deepParens := strings.Repeat("(", 100_000) + "\"x\"" + strings.Repeat(")", 100_000)
	deepTemplate := strings.Repeat("\"${", 100_000) + "1" + strings.Repeat("}\"", 100_000)
	for _, tc := range []struct {
		name string
		file string // the plan file main.hcl or main.hcl.json
		src  string
		vars []VarArg
		env  []string
		// where the diagnostic points
		in         string
		line, col  int
		wantDetail string
	}{
		{name: "parentheses", file: "main.hcl", src: base + "endpoint \"e\" {\n  body = " + deepParens + "\n}\n",
			in: "main.hcl", line: 9, col: 9 + maxNesting}, // the block's brace is one level
		{name: "templates", file: "main.hcl", src: base + "endpoint \"e\" {\n  body = " + deepTemplate + "\n}\n",
			in: "main.hcl", line: 9},
		{name: "unary operators", file: "main.hcl", src: base + "endpoint \"e\" {\n  weight = " + strings.Repeat("-", 1_000_000) + "1\n}\n",
			in: "main.hcl", line: 9},
		{name: "conditionals", file: "main.hcl", src: base + "endpoint \"e\" {\n  weight = " + strings.Repeat("true ? 1 : ", 1_000_000) + "2\n}\n",
			in: "main.hcl", line: 9},
		{name: "json", file: "main.hcl.json", src: `{"target": {"t": {"url": "http://127.0.0.1:1"}}, "endpoint": {"e": {"body": ` +
			strings.Repeat("[", 1_000_000) + strings.Repeat("]", 1_000_000) + `}}}`, in: "main.hcl.json", line: 1},
		{name: "var-file", file: "main.hcl", src: base + "endpoint \"e\" {}\n", vars: []VarArg{{File: true, Value: "deep.tfvars"}},
			in: "deep.tfvars", line: 1},
		{name: "-var", file: "main.hcl", src: base + "endpoint \"e\" {}\n", vars: []VarArg{{Value: "n=" + deepParens}},
			in: "<value for var.n>", line: 1},
		{name: "environment", file: "main.hcl", src: base + "endpoint \"e\" {}\n", env: []string{"TRESSI_VAR_n=" + strings.Repeat("!", 1_000_000) + "true"},
			in: "<value for var.n>", line: 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fsys := fstest.MapFS{tc.file: {Data: []byte(tc.src)}, "deep.tfvars": {Data: []byte("n = " + deepParens + "\n")}}
			p, _, diags := Load(Options{Path: tc.file, FS: fsys, Vars: tc.vars, Env: tc.env})
			if p != nil || !diags.HasErrors() {
				t.Fatalf("loaded without an error: %s", describe(diags))
			}
			var found bool
			for _, d := range diags {
				if d.Summary == "Nested too deeply" || d.Summary == "Expression too long" {
					found = true
					if d.Subject == nil || d.Subject.Filename != tc.in || d.Subject.Start.Line != tc.line || (tc.col > 0 && d.Subject.Start.Column != tc.col) {
						t.Errorf("diagnostic at %v, want %s:%d:%d", d.Subject, tc.in, tc.line, tc.col)
					}
				}
			}
			if !found {
				t.Errorf("no nesting diagnostic in:\n%s", describe(diags))
			}
		})
	}
}

// Ordinary plans stay far below the bounds.
func TestNestingBoundsLeaveRealPlansAlone(t *testing.T) {
	src := "target \"t\" {\n  url = \"http://127.0.0.1:1\"\n}\nendpoint \"e\" {\n  body = jsonencode({ a = [[[[{ b = ((1 + 2) * 3) }]]]], c = \"${upper(\"x\")}\" })\n  weight = -(-(1))\n}\nload {\n  stage {\n    duration = \"1s\"\n    rate = 1\n  }\n}\n"
	if _, _, diags := Load(Options{Path: "main.hcl", FS: fstest.MapFS{"main.hcl": {Data: []byte(src)}}}); diags.HasErrors() {
		t.Fatal(describe(diags))
	}
}

// FuzzCheckNesting: the scanner that guards the parser never panics, and
// whatever it lets through parses without overflowing (the fuzzer's inputs
// are small, so this checks the scanner's own robustness and positions).
func FuzzCheckNesting(f *testing.F) {
	f.Add([]byte("a = \"${(((1)))}\"\n"), false)
	f.Add([]byte("x = <<EOF\n${[[1]]}\nEOF\n# (((\n"), false)
	f.Add([]byte(`{"a": [[["${((1))}"]]]}`), true)
	f.Fuzz(func(t *testing.T, src []byte, json bool) {
		d := checkNesting(src, "f.hcl", json)
		if d != nil && (d.Subject == nil || d.Subject.Start.Byte < 0 || d.Subject.Start.Byte > len(src)) {
			t.Fatalf("diagnostic range %v out of a %d-byte source", d.Subject, len(src))
		}
	})
}
