package report

import (
	"embed"
	"encoding/json"
	"html/template"
	"io"
	"time"

	"github.com/tressi/tressi/search"
)

// The search page has its own template and chart code, embedded and inlined
// like the run report's: one file that opens offline.
//
//go:embed html/search.html.tmpl html/search.js
var searchHTMLFiles embed.FS

var searchPage = template.Must(template.New("search.html.tmpl").ParseFS(searchHTMLFiles, "html/search.html.tmpl"))

// searchChart is what search.js draws.
type searchChart struct {
	Unit           string         `json:"unit"`
	MaxRate        *float64       `json:"max_rate"`
	MinFailingRate *float64       `json:"min_failing_rate"`
	P99LimitMs     float64        `json:"p99_limit_ms,omitempty"`
	Probes         []search.Probe `json:"probes"`
}

func (r *SearchReport) writeHTML(w io.Writer) error {
	s := r.Search
	data := searchChart{Unit: s.Unit, MaxRate: s.MaxRate, MinFailingRate: s.MinFailingRate, Probes: s.Probes,
		P99LimitMs: float64(r.p99Limit) / 1e6}
	js, err := json.Marshal(data) // escapes <, > and &: safe inside <script>
	if err != nil {
		return err
	}
	css, err := htmlFiles.ReadFile("html/style.css")
	if err != nil {
		return err
	}
	script, err := searchHTMLFiles.ReadFile("html/search.js")
	if err != nil {
		return err
	}
	return searchPage.Execute(w, map[string]any{
		"Title":    "tressi capacity search: " + s.Plan,
		"Unit":     s.Unit,
		"Sections": r.sections(),
		"Data":     template.JS(js),
		"CSS":      template.CSS(css),
		"Script":   template.JS(script),
		"Made":     s.Start.UTC().Format(time.RFC3339),
	})
}
