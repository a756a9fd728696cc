package report

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/tressi/tressi/results"
)

// lateRows is a run of n requests, each sent lag ns after its due instant.
func lateRows(n int, lag int64) []results.Row {
	rows := make([]results.Row, n)
	for k := range rows {
		due := int64(k) * 1e5
		rows[k] = results.Row{Slot: uint64(k), Scheduled: due, Sent: due + lag, Latency: lag + 1e6, Service: 1e6, Status: 200}
	}
	return rows
}

// A generator slower than its schedule says so first, with the lag
// figures: the offered load was not delivered on time.
func TestGeneratorBehindScheduleIsSaid(t *testing.T) {
	dir := writeRows(t, results.Meta{PlanName: "p", ScheduleHash: "h"}, []string{"home"}, lateRows(1000, 2e9), `{"exit_status":"ok"}`)
	rep, err := Build([]string{dir}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if rep.SendLag.P50 < 1990 || rep.SendLag.P50 > 2010 {
		t.Errorf("send_lag_ms p50 = %v, want 2000", rep.SendLag.P50)
	}
	var text strings.Builder
	rep.Render(&text, Text)
	first := strings.SplitN(text.String(), "\n", 3)
	if !strings.HasPrefix(first[0], "BEHIND SCHEDULE") || !strings.Contains(text.String(), "p50 2.00 s") || !strings.Contains(text.String(), "still honest") {
		t.Errorf("the report of a late generator starts:\n%s", strings.Join(first, "\n"))
	}
	// A punctual one says nothing of the kind.
	dir = writeRows(t, results.Meta{PlanName: "p", ScheduleHash: "h"}, []string{"home"}, lateRows(1000, 2e5), `{"exit_status":"ok"}`)
	if rep, err = Build([]string{dir}, Options{}); err != nil {
		t.Fatal(err)
	}
	text.Reset()
	rep.Render(&text, Text)
	if strings.Contains(text.String(), "BEHIND SCHEDULE") {
		t.Errorf("a generator 0.2 ms late is reported behind schedule")
	}
}

// Requests that waited for a connection (meta.json's connection_waits) are
// the plan's connections, not the CPU: the report says so first, and does
// not tell the user to give the generator more CPU. The JSON report's
// warnings open with what the text opens with.
func TestConnectionQueueingIsNotBlamedOnTheCPU(t *testing.T) {
	dir := writeRows(t, results.Meta{PlanName: "p", ScheduleHash: "h"}, []string{"home"}, lateRows(1000, 2e9), `{"exit_status":"ok","connection_waits":950}`)
	rep, err := Build([]string{dir}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var text strings.Builder
	rep.Render(&text, Text)
	first := strings.SplitN(text.String(), "\n", 3)
	if !strings.HasPrefix(first[0], "QUEUED FOR CONNECTIONS: 950 requests waited for a connection") || strings.Contains(text.String(), "more CPU") {
		t.Errorf("the report of requests queued for connections starts:\n%s", strings.Join(first, "\n"))
	}
	var js strings.Builder
	if err := rep.WriteJSON(&js); err != nil {
		t.Fatal(err)
	}
	var out struct{ Warnings []string }
	if err := json.Unmarshal([]byte(js.String()), &out); err != nil || len(out.Warnings) == 0 || !strings.HasPrefix(out.Warnings[0], "QUEUED FOR CONNECTIONS") {
		t.Errorf("the JSON report's warnings %q (%v) do not open with the banner", out.Warnings, err)
	}
	// The generator's own lateness still says BEHIND SCHEDULE, in JSON too.
	dir = writeRows(t, results.Meta{PlanName: "p", ScheduleHash: "h"}, []string{"home"}, lateRows(1000, 2e9), `{"exit_status":"ok"}`)
	if rep, err = Build([]string{dir}, Options{}); err != nil {
		t.Fatal(err)
	}
	js.Reset()
	if err := rep.WriteJSON(&js); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(js.String()), &out); err != nil || len(out.Warnings) == 0 || !strings.HasPrefix(out.Warnings[0], "BEHIND SCHEDULE") {
		t.Errorf("the JSON report's warnings %q (%v) do not open with BEHIND SCHEDULE", out.Warnings, err)
	}
}
