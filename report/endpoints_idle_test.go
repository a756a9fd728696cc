package report

import (
	"strings"
	"testing"

	"github.com/tressi/tressi/results"
)

// A run whose every request was refused before it was sent: the errors
// line says what the rate is over (the requests judged, not "the requests
// sent": none was), and an endpoint with no request (weight 0) is named
// once below the table instead of filling it with a row of dashes.
func TestRefusedRunAndIdleEndpointsReadRight(t *testing.T) {
	rows := make([]results.Row, 104)
	for k := range rows {
		rows[k] = results.Row{Slot: uint64(k), Scheduled: int64(k) * 1e6, Sent: -1, Latency: -1, Service: -1, Error: results.ConnectRefused}
	}
	dir := writeRows(t, results.Meta{PlanName: "p", ScheduleHash: "h"}, []string{"home", "never"}, rows, `{"exit_status":"thresholds_failed"}`)
	rep, err := Build([]string{dir}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var text strings.Builder
	rep.Render(&text, Text)
	out := text.String()
	if !strings.Contains(out, "errors          104 (100.00% of the 104 requests judged)") || strings.Contains(out, "requests sent)") {
		t.Errorf("the errors line:\n%s", out)
	}
	if !strings.Contains(out, "left out, with no request in this run (weight 0, or never selected): never") {
		t.Errorf("the idle endpoint is not named below the table:\n%s", out)
	}
	for _, line := range strings.Split(out, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "never ") {
			t.Errorf("the idle endpoint has a row: %q", line)
		}
	}
}
