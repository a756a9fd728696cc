package cli

import (
	"bytes"
	"fmt"
	"io"
	"strings"

	"github.com/hashicorp/hcl/v2"
)

// diagnosticWidth is the column at which a diagnostic's detail wraps.
const diagnosticWidth = 100

// writeDiagnosticsText renders diagnostics as Terraform does, adding what
// hcl.NewDiagnosticTextWriter leaves out without colour: the position as
// file:line:column and a caret line under the subject on its first line.
// Everything else is hcl's own rendering (the context line, multi-line
// snippets, "with var.x as 5" values), rewritten, not reimplemented.
//
//	Error: Invalid connections
//
//	  on plan.hcl:8:17, in target "api":
//	   8:   connections = 0
//	                      ^
//
//	connections must be between 1 and 1048576 (got 0).
func writeDiagnosticsText(w io.Writer, files map[string]*hcl.File, diags hcl.Diagnostics) error {
	var one bytes.Buffer
	for _, d := range diags {
		one.Reset()
		if err := hcl.NewDiagnosticTextWriter(&one, files, diagnosticWidth, false).WriteDiagnostic(d); err != nil {
			return err
		}
		if _, err := io.WriteString(w, withColumnAndCaret(one.String(), d)); err != nil {
			return err
		}
	}
	return nil
}

// withColumnAndCaret rewrites hcl's "  on FILE line N" as "  on FILE:N:C"
// and puts a caret line under the subject's first source line.
func withColumnAndCaret(text string, d *hcl.Diagnostic) string {
	r := d.Subject
	if r == nil {
		return text
	}
	header := fmt.Sprintf("  on %s line %d", r.Filename, r.Start.Line)
	at := strings.Index(text, header)
	if at < 0 || at > 0 && text[at-1] != '\n' {
		return text
	}
	text = text[:at] + fmt.Sprintf("  on %s:%d:%d", r.Filename, r.Start.Line, r.Start.Column) + text[at+len(header):]
	prefix := fmt.Sprintf("%4d: ", r.Start.Line)
	lines := strings.SplitAfter(text, "\n")
	for i, line := range lines {
		if !strings.HasPrefix(line, prefix) {
			continue
		}
		src := strings.TrimRight(strings.TrimPrefix(line, prefix), "\r\n")
		if !printable(src) {
			break
		}
		caret := strings.Repeat(" ", len(prefix)) + caretLine(src, *r) + "\n"
		lines = append(lines[:i+1], append([]string{caret}, lines[i+1:]...)...)
		break
	}
	return strings.Join(lines, "")
}

func printable(s string) bool {
	for _, r := range s {
		if r == '\uFFFD' || r < 0x20 && r != '\t' || r == 0x7f {
			return false
		}
	}
	return true
}

// caretLine marks columns [start, end) of the range on its first line with
// carets (at least one), keeping tabs so the carets line up under them.
func caretLine(line string, r hcl.Range) string {
	runes := []rune(line)
	start := min(max(r.Start.Column-1, 0), len(runes))
	end := len(runes)
	if r.End.Line == r.Start.Line {
		end = min(max(r.End.Column-1, start+1), len(runes))
	}
	var b strings.Builder
	for _, c := range runes[:start] {
		if c == '\t' {
			b.WriteRune('\t')
		} else {
			b.WriteByte(' ')
		}
	}
	b.WriteString(strings.Repeat("^", max(end-start, 1)))
	return b.String()
}
