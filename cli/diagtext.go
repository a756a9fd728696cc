package cli

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"strings"

	"github.com/hashicorp/hcl/v2"
	wordwrap "github.com/mitchellh/go-wordwrap"
)

// diagnosticWidth is the column at which a diagnostic's detail wraps.
const diagnosticWidth = 100

// writeDiagnosticsText renders diagnostics as Terraform does, with what
// hcl.NewDiagnosticTextWriter leaves out without colour: the position as
// file:line:column and a caret line under the source that marks the range.
//
//	Error: Invalid connections
//
//	  on plan.hcl:8:17, in target "api":
//	   8:   connections = 0
//	                      ^
//
//	connections must be between 1 and 1048576 (got 0).
func writeDiagnosticsText(w io.Writer, files map[string]*hcl.File, diags hcl.Diagnostics) error {
	bw := bufio.NewWriter(w)
	for _, d := range diags {
		writeDiagnosticText(bw, files, d)
	}
	return bw.Flush()
}

func writeDiagnosticText(w *bufio.Writer, files map[string]*hcl.File, d *hcl.Diagnostic) {
	severity := "Error"
	if d.Severity == hcl.DiagWarning {
		severity = "Warning"
	}
	fmt.Fprintf(w, "%s: %s\n\n", severity, d.Summary)
	if r := d.Subject; r != nil {
		writeSnippet(w, files[r.Filename], *r)
	}
	if d.Detail != "" {
		w.WriteString(wordwrap.WrapString(d.Detail, diagnosticWidth))
		w.WriteString("\n\n")
	}
}

// writeSnippet prints "on FILE:LINE:COL[, in CONTEXT]:", then the subject's
// first line and a caret line under its range, when the source is known.
func writeSnippet(w *bufio.Writer, file *hcl.File, r hcl.Range) {
	where := fmt.Sprintf("%s:%d:%d", r.Filename, r.Start.Line, r.Start.Column)
	if file != nil && file.Nav != nil {
		if cs, ok := file.Nav.(interface{ ContextString(int) string }); ok {
			if ctx := cs.ContextString(r.Start.Byte); ctx != "" {
				where += ", in " + ctx
			}
		}
	}
	fmt.Fprintf(w, "  on %s:\n", where)
	if file == nil || r.Start.Line < 1 {
		w.WriteString("\n")
		return
	}
	line, ok := sourceLine(file.Bytes, r.Start.Line)
	if !ok {
		w.WriteString("\n")
		return
	}
	prefix := fmt.Sprintf("%4d: ", r.Start.Line)
	fmt.Fprintf(w, "%s%s\n", prefix, line)
	fmt.Fprintf(w, "%s%s\n\n", strings.Repeat(" ", len(prefix)), caretLine(line, r))
}

// sourceLine returns line n (from 1) of src without its line ending; binary
// text is not shown, since it would only garble the terminal.
func sourceLine(src []byte, n int) (string, bool) {
	lines := bytes.SplitN(src, []byte("\n"), n+1)
	if len(lines) < n {
		return "", false
	}
	line := strings.TrimRight(string(lines[n-1]), "\r")
	if !printable(line) {
		return "", false
	}
	return line, true
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
