package report

import (
	"strings"
	"testing"

	"github.com/tressi/tressi/results"
)

// A run stopped by Ctrl-C: the slots it never sent and the requests the
// stop cut off say nothing about the server, so they are no errors.
func TestStoppedRunErrorRateIsOverRequestsSent(t *testing.T) {
	dir := writeRows(t, results.Meta{PlanName: "quickstart", ScheduleHash: "h"}, []string{"home"}, stoppedRows(820, 319+4, 4), "")
	rep, err := Build([]string{dir}, Options{Thresholds: &results.Thresholds{ErrorRate: 0.01}})
	if err != nil {
		t.Fatal(err)
	}
	s := rep.Summary
	if s.Requests != 820 || s.OK != 319 || s.NotSent != 497 || s.Interrupted != 4 {
		t.Errorf("requests/ok/not_sent/interrupted = %d/%d/%d/%d, want 820/319/497/4", s.Requests, s.OK, s.NotSent, s.Interrupted)
	}
	if s.Errors != 0 || s.ErrorRate != 0 {
		t.Errorf("errors %d, error_rate %v; want 0 and 0: not_sent and interrupted are not errors", s.Errors, s.ErrorRate)
	}
	if s.Endpoints[0].Errors != 0 {
		t.Errorf("endpoint errors = %d, want 0", s.Endpoints[0].Errors)
	}
	if !s.ThresholdsPassed() {
		t.Errorf("thresholds %+v failed; the requests sent all succeeded", s.Thresholds)
	}
	// The text report has no Errors table (there were none), and lists the
	// rows the stop left apart, with what they mean.
	var b strings.Builder
	if err := rep.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	text := b.String()
	if strings.Contains(text, "\nErrors\n") {
		t.Errorf("an Errors table for a run without errors:\n%s", text)
	}
	for _, want := range []string{"Rows that are not errors", "not_sent       497  due after the run stopped, never sent", "interrupted      4  in flight when the run stopped"} {
		if !strings.Contains(text, want) {
			t.Errorf("the text report lacks %q:\n%s", want, text)
		}
	}
}
