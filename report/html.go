package report

import (
	"embed"
	"encoding/json"
	"html/template"
	"io"
	"strings"
	"time"

	"github.com/tressi/tressi/internal/dashboard"
	"github.com/tressi/tressi/internal/live"
)

// The page, its style and its chart code are embedded, then inlined into one
// file: the report opens anywhere, offline, with no CDN.
//
//go:embed html/report.html.tmpl html/style.css html/charts.js
var htmlFiles embed.FS

var htmlPage = template.Must(template.New("report.html.tmpl").ParseFS(htmlFiles, "html/report.html.tmpl"))

// chartData is what the page's script draws; the tables are rendered here.
type chartData struct {
	Series []Second         `json:"series"`
	CDF    []CDFPoint       `json:"cdf"`
	Status map[string]int64 `json:"status"`
	// Unexpected is the part of Status the endpoints did not expect: the
	// bars drawn as failures (a 404 the plan expects is drawn as ok).
	Unexpected map[string]int64 `json:"unexpected"`
	// OpenConnections is a WebSocket run's most open connections per second.
	OpenConnections []int64    `json:"open_connections,omitempty"`
	Baseline        *chartData `json:"baseline,omitempty"`
}

func newChartData(s *Summary) *chartData {
	d := &chartData{Series: s.Series, CDF: s.LatencyCDF, Status: s.Status, Unexpected: s.UnexpectedStatus}
	if s.WebSocket != nil {
		d.OpenConnections = s.WebSocket.OpenConnections
	}
	return d
}

// WriteHTML writes one self-contained page: the report's tables plus SVG
// charts (latency percentiles and throughput over time, status codes, the
// latency distribution) drawn by inline script.
func (r *Report) WriteHTML(w io.Writer) error {
	data := newChartData(&r.Summary)
	if r.Baseline != nil {
		data.Baseline = newChartData(r.Baseline)
	}
	js, err := json.Marshal(data) // escapes <, > and &: safe inside <script>
	if err != nil {
		return err
	}
	css, err := htmlFiles.ReadFile("html/style.css")
	if err != nil {
		return err
	}
	script, err := htmlFiles.ReadFile("html/charts.js")
	if err != nil {
		return err
	}
	title := "tressi report"
	if r.Run.PlanName != "" {
		title += ": " + r.Run.PlanName
	}
	liveData, err := r.liveUpdate()
	if err != nil {
		return err
	}
	liveHTML, liveScript := dashboard.Charts()
	return htmlPage.Execute(w, map[string]any{
		"Live":       liveData != nil,
		"LiveData":   template.JS(liveData),
		"LiveHTML":   template.HTML(liveHTML),
		"LiveScript": template.JS(liveScript),
		"Title":      title,
		"Sections":   r.sections(),
		"Baseline":   r.Baseline != nil,
		"WebSocket":  r.WebSocket != nil && len(r.WebSocket.OpenConnections) > 0,
		"Data":       template.JS(js),
		"CSS":        template.CSS(css),
		"Script":     template.JS(script),
		"Made":       time.Unix(0, r.Run.StartUnixNs).UTC().Format(time.RFC3339),
	})
}

// liveUpdate is the run's rows as the live dashboard would have shown them
// at the end, shards merged: the page draws the dashboard's charts from it.
// nil when the inputs hold no rows.
func (r *Report) liveUpdate() ([]byte, error) {
	var paths, shards []string
	for _, in := range r.inputs {
		paths = append(paths, in.Results)
	}
	for _, sh := range r.Shards {
		shards = append(shards, sh.Shard)
	}
	width, ivs, err := live.Replay(paths)
	if err != nil || len(ivs) == 0 {
		return nil, err
	}
	u := live.Update{Width: width, Reset: true, Intervals: ivs, Totals: live.Sum(ivs),
		Run: live.RunInfo{Plan: r.Run.PlanName, RunID: r.Run.RunID, Shard: strings.Join(shards, " "),
			StartUnixNs: r.Run.StartUnixNs, State: live.StateEnded}}
	return json.Marshal(u) // escapes <, > and &: safe inside <script>
}
