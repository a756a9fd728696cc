package metrics

import (
	"encoding/json"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// The Grafana dashboard in examples/grafana queries exactly the names
// tressi exports: none it does not, and every one it does.
func TestGrafanaDashboardQueriesTheseNames(t *testing.T) {
	b, err := os.ReadFile("../../examples/grafana/tressi-live.json")
	if err != nil {
		t.Fatal(err)
	}
	var dash struct {
		Panels []struct {
			Title   string
			Targets []struct{ Expr string }
		}
	}
	if err := json.Unmarshal(b, &dash); err != nil {
		t.Fatal(err)
	}
	exported := []string{RequestsTotal, RequestDuration, ServiceDuration, SendLag, OpenConnections, OfferedRate, AchievedRate,
		SearchProbeRate, ActiveSessions, InFlight}
	used := map[string]bool{}
	name := regexp.MustCompile(`tressi_[a-z_]+`)
	for _, p := range dash.Panels {
		if len(p.Targets) == 0 {
			t.Errorf("panel %q queries nothing", p.Title)
		}
		for _, tg := range p.Targets {
			for _, n := range name.FindAllString(tg.Expr, -1) {
				base := strings.TrimSuffix(strings.TrimSuffix(strings.TrimSuffix(n, "_bucket"), "_sum"), "_count")
				if !slices.Contains(exported, base) {
					t.Errorf("panel %q queries %s, which tressi does not export", p.Title, n)
				}
				used[base] = true
			}
			if !strings.Contains(tg.Expr, `run_id=~"$run_id"`) {
				t.Errorf("panel %q's query %s does not select the run", p.Title, tg.Expr)
			}
		}
	}
	for _, n := range exported {
		if !used[n] {
			t.Errorf("no panel shows %s", n)
		}
	}
}
