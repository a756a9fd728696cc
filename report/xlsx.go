package report

import (
	"io"
	"strings"
)

// The XLSX sheets, exactly these: raw rows exceed Excel's 1,048,576-row
// limit on any real run (the seed's export bug), so they live in the CSV.
const (
	SheetGlobal    = "Global Summary"
	SheetEndpoints = "Endpoint Summary"
	SheetStatus    = "Status Code Distribution"
	SheetSamples   = "Sampled Responses"
	// SheetScenarios comes after the four required sheets, and only when
	// the run has scenarios, so readers that find sheets by position still
	// find the four where they expect them.
	SheetScenarios = "Scenario Summary"
)

// WriteXLSX writes the report as a workbook with the four summary sheets,
// plus the scenario sheet when the run has scenarios. Numbers are stored as numbers so they can be charted and summed.
func (r *Report) WriteXLSX(w io.Writer) error {
	sheets := []xlsxSheet{
		{SheetGlobal, r.globalRows()},
		{SheetEndpoints, r.endpointRows()},
		{SheetStatus, r.statusRows()},
		{SheetSamples, r.sampleRows()},
	}
	if len(r.Scenarios) > 0 {
		sheets = append(sheets, xlsxSheet{SheetScenarios, r.scenarioRows()})
	}
	for _, sh := range sheets {
		escapeCells(sh.rows)
	}
	return writeXLSX(w, sheets, zipDate(r.Run.StartUnixNs))
}

func (r *Report) globalRows() [][]any {
	header := []any{"metric", "value"}
	if r.Baseline != nil {
		header = append(header, "baseline", "change", "relative change")
	}
	rows := [][]any{header}
	add := func(name string, cur, base float64, d *Change) {
		row := []any{name, cur}
		if r.Baseline != nil {
			row = append(row, base)
			if d != nil {
				row = append(row, d.Abs)
				if d.Rel != nil {
					row = append(row, *d.Rel)
				}
			}
		}
		rows = append(rows, row)
	}
	s, b := &r.Summary, r.Baseline
	if b == nil {
		b = &Summary{}
	}
	var d Delta
	if r.Delta != nil {
		d = *r.Delta
	}
	add("requests", float64(s.Requests), float64(b.Requests), nil)
	add("sent", float64(s.Sent), float64(b.Sent), nil)
	add("ok", float64(s.OK), float64(b.OK), nil)
	add("errors", float64(s.Errors), float64(b.Errors), nil)
	add("error_rate", s.ErrorRate, b.ErrorRate, &d.ErrorRate)
	add("duration_s", s.DurationS, b.DurationS, nil)
	add("throughput_rps", s.ThroughputRPS, b.ThroughputRPS, &d.ThroughputRPS)
	add("quantile_relative_error", s.Precision.QuantileRelativeError, b.Precision.QuantileRelativeError, nil)
	add("not_sent", float64(s.NotSent), float64(b.NotSent), nil)
	add("interrupted", float64(s.Interrupted), float64(b.Interrupted), nil)
	bl, bs := percentileFields(b.Latency), percentileFields(b.Service)
	for i, f := range percentileFields(s.Latency) {
		c := d.Latency[f.Name]
		add("latency_ms."+f.Name, f.Value, bl[i].Value, &c)
	}
	for i, f := range percentileFields(s.Service) {
		c := d.Service[f.Name]
		add("service_ms."+f.Name, f.Value, bs[i].Value, &c)
	}
	return rows
}

func (r *Report) endpointRows() [][]any {
	rows := [][]any{{"endpoint", "requests", "ok", "errors", "error_rate", "min_ms", "mean_ms", "p50_ms", "p90_ms", "p95_ms", "p99_ms", "p999_ms", "max_ms"}}
	for _, e := range r.Endpoints {
		row := []any{e.Name, e.Requests, e.OK, e.Errors, share(e.Errors, e.Requests)}
		for _, f := range percentileFields(e.Latency) {
			if e.Latency.Count == 0 {
				row = append(row, noSample) // no response: 0 would read as fast
			} else {
				row = append(row, f.Value)
			}
		}
		rows = append(rows, row)
	}
	return rows
}

func (r *Report) statusRows() [][]any {
	rows := [][]any{{"status", "count", "share"}}
	for _, c := range r.StatusDistribution() {
		rows = append(rows, []any{c.Status, c.Count, share(c.Count, r.Requests)})
	}
	return rows
}

func (r *Report) sampleRows() [][]any {
	rows := [][]any{{"endpoint", "status", "error", "body_size", "headers", "body"}}
	for _, s := range r.Samples {
		rows = append(rows, []any{s.Endpoint, s.Status, s.Error, s.BodySize, s.Headers, s.Body})
	}
	return rows
}

func (r *Report) scenarioRows() [][]any {
	rows := [][]any{{"scenario", "steps", "sessions", "completed", "failed", "requests_per_session",
		"session_min_ms", "session_mean_ms", "session_p50_ms", "session_p90_ms", "session_p95_ms", "session_p99_ms", "session_p999_ms", "session_max_ms"}}
	for _, sc := range r.Scenarios {
		row := []any{sc.Name, strings.Join(sc.Steps, ", "), sc.Sessions, sc.Completed, sc.Failed, sc.RequestsPerSession}
		for _, f := range percentileFields(sc.Session) {
			row = append(row, f.Value)
		}
		rows = append(rows, row)
	}
	return rows
}
