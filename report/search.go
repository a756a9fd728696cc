package report

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/tressi/tressi/results"
	"github.com/tressi/tressi/search"
)

// SearchReport is the report of a capacity search's run directory: the
// search's record, with each probe's figures recomputed from its rows.
type SearchReport struct {
	Search   *search.Record `json:"search"`
	Warnings []string       `json:"warnings,omitempty"`

	p99Limit time.Duration // the plan's p99 threshold, drawn on the chart; 0: none
}

// IsSearchRun reports whether path is the run directory of a search.
func IsSearchRun(path string) bool {
	_, err := os.Stat(filepath.Join(path, search.File))
	return err == nil
}

// BuildSearch reads a search's run directory. Each probe's figures
// (achieved, p50, p99, error rate) are recomputed from the probe's own
// rows, warmup excluded, with th (the plan's thresholds); verdicts and
// their reasons are the search's, since an early stop was decided live.
func BuildSearch(dir string, th *results.Thresholds) (*SearchReport, error) {
	rec, err := search.ReadRecord(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%s is not a search run: it has no %s", dir, search.File)
	}
	if err != nil {
		return nil, err
	}
	rep := &SearchReport{Search: rec}
	var thr results.Thresholds
	if th != nil {
		thr = *th
	}
	rep.p99Limit = thr.P99
	for i := range rec.Probes {
		p := &rec.Probes[i]
		t, _, err := search.TallyProbe(filepath.Join(dir, p.Dir), thr)
		if err != nil {
			rep.Warnings = append(rep.Warnings, fmt.Sprintf("probe %d: %v; its figures are the ones recorded during the search", p.Index, err))
			continue
		}
		p.FillFigures(t)
	}
	return rep, nil
}

// Render writes the search report as text, Markdown, JSON or HTML.
func (r *SearchReport) Render(w io.Writer, f Format) error {
	switch f {
	case Text:
		return r.writeText(w)
	case Markdown:
		return r.writeMarkdown(w)
	case JSON:
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(false) // "p99 <= 50ms" stays readable
		return enc.Encode(r)
	case HTML:
		return r.writeHTML(w)
	case CSV, XLSX:
		return fmt.Errorf("a search run is reported as text, md, json or html; for %s, report one probe's rows: tressi report DIR/%s --format %s",
			f, search.ProbeDir(1), f)
	}
	_, err := ParseFormat(string(f))
	return err
}

// sections are the search's tables, shared by text, Markdown and HTML.
func (r *SearchReport) sections() []section {
	s := r.Search
	found := section{Title: "Capacity search: " + s.Plan + " (" + s.Model + " model)", Header: []string{"", ""}, Align: "ll"}
	found.Rows = [][]string{
		{"max_rate", valueOr(s.MaxRate, s.Unit, "none: no probe passed")},
		{"min_failing_rate", valueOr(s.MinFailingRate, s.Unit, "none: every probe passed")},
		{"ended", s.Ended},
		{"criteria", strings.Join(s.Criteria, ", ")},
		{"probes", fmt.Sprintf("from %g to %g %s, ×%g until one fails, then bisect to %g%%; at most %d, each %gs warmup + %gs hold, %gs cool-down",
			s.From, s.To, s.Unit, s.Growth, 100*s.Precision, s.MaxProbes, s.WarmupS, s.HoldS, s.CooldownS)},
	}
	table := section{Title: "Probes", Header: []string{"#", "offered (" + s.Unit + ")", "achieved (req/s)", "p50", "p99", "errors", "verdict", "why"},
		Align: "rrrrrrll"}
	for _, p := range s.Probes {
		why := strings.Join(p.Reasons, "; ")
		table.Rows = append(table.Rows, []string{strconv.Itoa(p.Index), strconv.FormatFloat(p.Offered, 'f', -1, 64),
			strconv.FormatFloat(p.Achieved, 'f', 1, 64), msCell(p.P50Ms), msCell(p.P99Ms),
			strconv.FormatFloat(100*p.ErrorRate, 'f', 2, 64) + "%", p.Verdict, why})
	}
	table.Notes = append(table.Notes, "Figures cover each probe's hold only: its warmup was sent and recorded, not judged. Latency is corrected (from the due instant).")
	for _, w := range r.Warnings {
		table.Notes = append(table.Notes, "Warning: "+w)
	}
	return []section{found, table}
}

func valueOr(v *float64, unit, none string) string {
	if v == nil {
		return none
	}
	return strconv.FormatFloat(*v, 'f', -1, 64) + " " + unit
}

func msCell(v float64) string {
	if v < 0 {
		return "-"
	}
	return strconv.FormatFloat(v, 'f', 3, 64) + " ms"
}

func (r *SearchReport) writeText(w io.Writer) error {
	bw := bufio.NewWriter(w)
	for i, sec := range r.sections() {
		if i > 0 {
			bw.WriteByte('\n')
		}
		bw.WriteString(sec.Title + "\n")
		writeAligned(bw, &sec)
		for _, n := range sec.Notes {
			bw.WriteString("  " + n + "\n")
		}
	}
	return bw.Flush()
}

func (r *SearchReport) writeMarkdown(w io.Writer) error {
	bw := bufio.NewWriter(w)
	for _, sec := range r.sections() {
		bw.WriteString("## " + mdEscape(sec.Title) + "\n\n")
		writeMarkdownTable(bw, &sec)
		for _, n := range sec.Notes {
			bw.WriteString("\n" + mdEscape(n) + "\n")
		}
		bw.WriteString("\n")
	}
	return bw.Flush()
}
