package report

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tressi/tressi/results"
)

// writeExpectRun writes a run where "missing" expects 404 and gets it, and
// "home" (no expect: 200–399) gets 200 and 404.
func writeExpectRun(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	f, err := os.Create(filepath.Join(dir, "results.arrow"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	m := results.Meta{Version: "test", RunID: "expect", ScheduleHash: "h", PlanName: "expect",
		Expect: map[string][]int{"missing": {404}}}
	w, err := results.NewWriter(f, m, []string{"missing", "home"})
	if err != nil {
		t.Fatal(err)
	}
	var rows []results.Row
	for i := range 30 {
		r := results.Row{Slot: uint64(i), Scheduled: int64(i) * 1e6, Sent: int64(i) * 1e6, Latency: 1e6, Service: 1e6, Status: 404}
		switch {
		case i%3 == 1:
			r.Endpoint, r.Status = 1, 200
		case i%3 == 2:
			r.Endpoint = 1 // home got a 404 it does not expect
		}
		rows = append(rows, r)
	}
	if err := w.Write(rows); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestExpectedStatusIsNotAFailure: a 404 an endpoint expects counts as ok
// and is drawn as ok; the same status where it is not expected is not.
func TestExpectedStatusIsNotAFailure(t *testing.T) {
	rep, err := Build([]string{writeExpectRun(t)}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if rep.OK != 20 || rep.Status["404"] != 20 || rep.UnexpectedStatus["404"] != 10 || rep.UnexpectedStatus["200"] != 0 {
		t.Fatalf("ok %d, status %v, unexpected %v; want 20 ok, 20×404 of which 10 unexpected", rep.OK, rep.Status, rep.UnexpectedStatus)
	}
	var chart chartData
	page := render(t, rep, HTML)
	start := bytes.Index(page, []byte(`<script type="application/json" id="report-data">`))
	end := bytes.Index(page[start:], []byte("</script>"))
	raw := page[start+len(`<script type="application/json" id="report-data">`) : start+end]
	if err := json.Unmarshal(raw, &chart); err != nil {
		t.Fatalf("%v: %s", err, raw)
	}
	if chart.Unexpected["404"] != 10 || chart.Unexpected["200"] != 0 {
		t.Errorf("chart data unexpected = %v", chart.Unexpected)
	}

	chromium, err := exec.LookPath("chromium")
	if err != nil {
		t.Skip("chromium is not on PATH (CI installs it): the drawn colours were not checked")
	}
	// Only the expected 404: its bar must be drawn as ok.
	only := &Report{Summary: rep.Summary}
	only.Status = map[string]int64{"404": 10}
	only.UnexpectedStatus = map[string]int64{}
	for _, tc := range []struct {
		r    *Report
		want string
	}{
		{only, `data-status="404" data-ok="true"`},
		{rep, `data-status="404" data-ok="false"`},
	} {
		path := filepath.Join(t.TempDir(), "report.html")
		if err := os.WriteFile(path, render(t, tc.r, HTML), 0o644); err != nil {
			t.Fatal(err)
		}
		dom, _ := dumpDOM(t, chromium, "file://"+path)
		if !strings.Contains(dom, tc.want) {
			t.Errorf("the status chart lacks %s", tc.want)
		}
	}
}
