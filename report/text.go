package report

import (
	"bufio"
	"io"
	"strings"
	"unicode/utf8"
)

// WriteText writes the terminal summary: each section as an aligned table,
// text left-aligned and numbers right-aligned.
func (r *Report) WriteText(w io.Writer) error {
	bw := bufio.NewWriter(w)
	for i, sec := range r.sections() {
		if i > 0 {
			bw.WriteByte('\n')
		}
		bw.WriteString(sec.Title + "\n")
		if len(sec.Rows) > 0 {
			writeAligned(bw, &sec)
		}
		for _, n := range sec.Notes {
			bw.WriteString("  " + n + "\n")
		}
	}
	return bw.Flush()
}

// writeAligned pads every column to its widest cell, text left and numbers
// right; an all-empty header line is left out.
func writeAligned(w *bufio.Writer, sec *section) {
	all := sec.Rows
	if strings.Join(sec.Header, "") != "" {
		all = append([][]string{sec.Header}, sec.Rows...)
	}
	widths := make([]int, len(sec.Header))
	for _, row := range all {
		for c, cell := range row {
			widths[c] = max(widths[c], utf8.RuneCountInString(cell))
		}
	}
	for _, row := range all {
		var line strings.Builder
		line.WriteString("  ")
		for c, cell := range row {
			pad := strings.Repeat(" ", widths[c]-utf8.RuneCountInString(cell))
			if c > 0 {
				line.WriteString("  ")
			}
			if sec.leftAligned(c) {
				line.WriteString(cell + pad)
			} else {
				line.WriteString(pad + cell)
			}
		}
		w.WriteString(strings.TrimRight(line.String(), " ") + "\n")
	}
}
