package report

import (
	"bufio"
	"io"
	"strings"
)

// WriteMarkdown writes the report as GitHub-flavoured Markdown tables, for
// pull requests and wikis.
func (r *Report) WriteMarkdown(w io.Writer) error {
	bw := bufio.NewWriter(w)
	bw.WriteString("# tressi report")
	if r.Run.PlanName != "" {
		bw.WriteString(": " + mdEscape(r.Run.PlanName))
	}
	bw.WriteString("\n")
	for _, sec := range r.sections() {
		bw.WriteString("\n## " + sec.Title + "\n\n")
		if len(sec.Rows) > 0 {
			writeMarkdownTable(bw, &sec)
		}
		if len(sec.Rows) > 0 && len(sec.Notes) > 0 {
			bw.WriteString("\n")
		}
		for _, n := range sec.Notes {
			bw.WriteString("- " + mdEscape(n) + "\n")
		}
	}
	return bw.Flush()
}

func writeMarkdownTable(w *bufio.Writer, sec *section) {
	line := func(cells []string) {
		w.WriteString("|")
		for _, c := range cells {
			w.WriteString(" " + mdEscape(c) + " |")
		}
		w.WriteString("\n")
	}
	line(sec.Header)
	w.WriteString("|")
	for c := range sec.Header {
		if sec.leftAligned(c) {
			w.WriteString(" --- |")
		} else {
			w.WriteString(" ---: |")
		}
	}
	w.WriteString("\n")
	for _, r := range sec.Rows {
		line(r)
	}
}

// mdEscape keeps cell text from breaking the table or turning into markup.
var mdEscaper = strings.NewReplacer("|", `\|`, "\n", " ", "*", `\*`, "_", `\_`, "`", "\\`", "<", "&lt;")

func mdEscape(s string) string { return mdEscaper.Replace(s) }
