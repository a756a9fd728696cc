package report

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
)

// DiffFormats are the formats of `tressi diff --format`.
var DiffFormats = []Format{Text, Markdown, JSON}

// Render writes the diff as text, md (a pull-request comment) or json.
func (d *Diff) Render(w io.Writer, f Format) error {
	switch f {
	case JSON:
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(d)
	case Text, Markdown:
		return d.writeText(w, f == Markdown)
	}
	return fmt.Errorf("diff format %q: use text, md or json", f)
}

func (d *Diff) writeText(w io.Writer, md bool) error {
	var b strings.Builder
	head := func(s string) {
		if md {
			fmt.Fprintf(&b, "\n### %s\n\n", s)
		} else {
			fmt.Fprintf(&b, "\n%s\n", s)
		}
	}
	row := func(cells ...string) {
		if md {
			fmt.Fprintf(&b, "| %s |\n", strings.Join(cells, " | "))
		} else {
			fmt.Fprintf(&b, "  %s\n", strings.Join(cells, "\t"))
		}
	}
	rule := func(n int) {
		if md {
			fmt.Fprintf(&b, "|%s\n", strings.Repeat("---|", n))
		}
	}
	if md {
		fmt.Fprintf(&b, "## tressi diff\n\n`%s` → `%s`\n", d.A.Path, d.B.Path)
	} else {
		fmt.Fprintf(&b, "Diff %s → %s\n", d.A.Path, d.B.Path)
	}
	if d.SameSchedule {
		fmt.Fprintf(&b, "%sSame schedule %s: compared slot by slot.\n", nl(md), short(d.A.ScheduleHash))
		if d.Note != "" {
			fmt.Fprintf(&b, "%s%s.\n", nl(md), capital(d.Note))
		}
	} else {
		fmt.Fprintf(&b, "%s%s.\n", nl(md), capital(d.Note))
	}
	head("Summary")
	row("", "A", "B", "change")
	rule(4)
	row("requests", fmt.Sprint(d.A.Requests), fmt.Sprint(d.B.Requests), pct(float64(d.A.Requests), float64(d.B.Requests)))
	row("failed slots", fmt.Sprint(d.A.FailedSlots), fmt.Sprint(d.B.FailedSlots), fmt.Sprintf("%+d", d.B.FailedSlots-d.A.FailedSlots))
	if d.A.CutOff > 0 || d.B.CutOff > 0 { // a stop's rows: not errors, as in the report
		row("cut off (not sent, interrupted)", fmt.Sprint(d.A.CutOff), fmt.Sprint(d.B.CutOff), fmt.Sprintf("%+d", d.B.CutOff-d.A.CutOff))
	}
	row("error rate", fmt.Sprintf("%.3f%%", 100*d.A.ErrorRate), fmt.Sprintf("%.3f%%", 100*d.B.ErrorRate), fmt.Sprintf("%+.3f pp", 100*(d.B.ErrorRate-d.A.ErrorRate)))
	row("throughput", fmt.Sprintf("%.1f/s", d.A.ThroughputRPS), fmt.Sprintf("%.1f/s", d.B.ThroughputRPS), pct(d.A.ThroughputRPS, d.B.ThroughputRPS))
	for _, q := range []struct {
		n    string
		a, b float64
	}{{"p50", d.A.Latency.P50, d.B.Latency.P50}, {"p90", d.A.Latency.P90, d.B.Latency.P90}, {"p99", d.A.Latency.P99, d.B.Latency.P99}} {
		row("latency "+q.n, fmt.Sprintf("%.3f ms", q.a), fmt.Sprintf("%.3f ms", q.b), pct(q.a, q.b))
	}
	if d.SameSchedule {
		groups := func(title string, n int64, gs []SlotGroup) {
			head(fmt.Sprintf("%s: %d slots", title, n))
			if len(gs) == 0 {
				b.WriteString("  none\n")
				return
			}
			row("endpoint", "kind", "slots", "first slots (due)")
			rule(4)
			for _, g := range gs {
				var first []string
				for _, s := range g.First {
					if s.DueMs != nil {
						first = append(first, fmt.Sprintf("%d (%.3f s)", s.Slot, *s.DueMs/1e3))
					} else {
						first = append(first, fmt.Sprint(s.Slot))
					}
				}
				if int64(len(g.First)) < g.Slots {
					first = append(first, "…")
				}
				row(g.Endpoint, g.Kind, fmt.Sprint(g.Slots), strings.Join(first, ", "))
			}
		}
		groups("Ok in A, failed in B", d.NewlyFailedSlots, d.NewlyFailed)
		groups("Failed in A, ok in B", d.NewlyOKSlots, d.NewlyOK)
	}
	head("Latency by endpoint")
	cols := []string{"endpoint", "p50 A → B", "p90 A → B", "p99 A → B"}
	if d.SameSchedule {
		cols = append(cols, fmt.Sprintf("slower ×%g", d.SlowerFactor))
	}
	row(cols...)
	rule(len(cols))
	for _, e := range d.Endpoints {
		cells := []string{e.Name, shift(e.A.P50, e.B.P50), shift(e.A.P90, e.B.P90), shift(e.A.P99, e.B.P99)}
		if d.SameSchedule {
			cells = append(cells, fmt.Sprintf("%.2f%% of %d", 100*e.SlowerShare, e.Compared))
		}
		row(cells...)
	}
	if len(d.Gates) > 0 {
		head("Gates (--fail-on)")
		for _, g := range d.Gates {
			status := "pass"
			if g.Holds {
				status = "FAIL"
			}
			fmt.Fprintf(&b, "%s%s  %s: %s\n", bullet(md), status, g.Text, g.Detail)
		}
	}
	if len(d.Warnings) > 0 {
		head("Warnings")
		for _, w := range d.Warnings {
			fmt.Fprintf(&b, "%s%s\n", bullet(md), w)
		}
	}
	if md {
		_, err := io.WriteString(w, b.String())
		return err
	}
	tw := tabwriter.NewWriter(w, 0, 8, 3, ' ', 0)
	if _, err := io.WriteString(tw, b.String()); err != nil {
		return err
	}
	return tw.Flush()
}

func nl(md bool) string {
	if md {
		return "\n"
	}
	return ""
}

func bullet(md bool) string {
	if md {
		return "- "
	}
	return "  "
}

func capital(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

func pct(a, b float64) string {
	if a == 0 {
		if b == 0 {
			return "±0%"
		}
		return "new"
	}
	return fmt.Sprintf("%+.1f%%", (b-a)/a*100)
}

func shift(a, b float64) string { return fmt.Sprintf("%.2f → %.2f ms (%s)", a, b, pct(a, b)) }
