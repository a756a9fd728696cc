package report

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/tressi/tressi/internal/live"
	"github.com/tressi/tressi/report/synth"
	"github.com/tressi/tressi/results"
)

// twoShards is a run of two shards, merged by the report.
func twoShards(t *testing.T) *Report {
	t.Helper()
	var dirs []string
	for i := range 2 {
		dirs = append(dirs, writeRun(t, synth.Spec{Rows: 6000, Seed: 4, Rate: 1000, Shard: results.Shard{Index: i, Count: 2}}))
	}
	rep, err := Build(dirs, Options{})
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

var liveData = regexp.MustCompile(`(?s)<script type="application/json" id="live-data">(.*?)</script>`)

// The HTML report carries the live dashboard's view of the run, shards
// merged, and its totals are the report's.
func TestHTMLCarriesTheLiveView(t *testing.T) {
	rep := twoShards(t)
	page := string(render(t, rep, HTML))
	m := liveData.FindStringSubmatch(page)
	if m == nil {
		t.Fatal("the page has no live data")
	}
	var u live.Update
	if err := json.Unmarshal([]byte(m[1]), &u); err != nil {
		t.Fatal(err)
	}
	tot := u.Totals
	if tot.Requests != rep.Requests || tot.OK != rep.OK || tot.Errors != rep.Errors || tot.Latency != live.Percentiles(rep.Latency) {
		t.Fatalf("live totals %+v, report %d requests, %d ok, %d errors, latency %+v", tot, rep.Requests, rep.OK, rep.Errors, rep.Latency)
	}
	if len(u.Intervals) < 5 || u.Run.Shard != "0/2 1/2" || !strings.Contains(page, `data-chart="rate"`) {
		t.Fatalf("%d intervals, shards %q", len(u.Intervals), u.Run.Shard)
	}
}

// In headless Chromium the report draws the dashboard's charts, and their
// table says what the report says.
func TestHTMLDrawsLiveChartsInChromium(t *testing.T) {
	skipWithoutChromium(t)
	rep := twoShards(t)
	s, stderr := chromiumDOM(t, rep)
	if !strings.Contains(s, `data-live-rendered="true"`) || !strings.Contains(s, `data-rendered="true"`) {
		t.Fatalf("the report's scripts did not both finish; stderr:\n%s", stderr)
	}
	for _, chart := range []string{"rate", "latency", "service", "sendlag"} {
		m := regexp.MustCompile(`data-chart="` + chart + `"[^>]*data-points="(\d+)"`).FindStringSubmatch(s)
		if m == nil || m[1] == "0" {
			t.Errorf("live chart %s drew no points (%v)", chart, m)
		}
	}
	for _, e := range rep.Endpoints {
		row := fmt.Sprintf(`<tr data-endpoint="%s"><td>%s</td><td>%d</td><td>%d</td><td>%d</td>`, e.Name, e.Name, e.Requests, e.OK, e.Errors)
		if !strings.Contains(s, row) {
			t.Errorf("the live table lacks %s", row)
		}
	}
}
