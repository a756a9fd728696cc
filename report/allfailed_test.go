package report

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/tressi/tressi/results"
)

func TestAllFailedCheck(t *testing.T) {
	failed := Summary{Requests: 20, Errors: 20, ErrorRate: 1, ErrorKinds: map[string]int64{"connect_refused": 15, "not_sent": 5},
		Status: map[string]int64{"0": 20}}
	all404 := Summary{Requests: 10, Sent: 10, Completed: 10, Errors: 10, Status: map[string]int64{"404": 10},
		Latency: Percentiles{Count: 10, P50: 1, Max: 2}}
	oneOK := Summary{Requests: 10, Sent: 10, OK: 1, Errors: 9, Status: map[string]int64{"200": 1, "500": 9}}
	for _, tc := range []struct {
		name   string
		th     *results.Thresholds
		s      Summary
		fails  bool
		detail string
	}{
		{"no thresholds, every request refused", nil, failed, true, "every request failed: connect_refused 15, not_sent 5"},
		{"every response unexpected", &results.Thresholds{ErrorRate: 0.5}, all404, true, "every request failed: status 404 10"},
		{"allowed by the plan", &results.Thresholds{AllowAllFailed: true}, failed, false, ""},
		{"one ok is enough", nil, oneOK, false, ""},
		{"nothing scheduled", nil, Summary{}, false, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, fails := allFailed(tc.th, &tc.s)
			if fails != tc.fails || r.Detail != tc.detail || fails && r.OK {
				t.Errorf("allFailed = %+v, %v; want fails=%v detail %q", r, fails, tc.fails, tc.detail)
			}
			if got := AllFailedOutcome(tc.th, tc.s.Requests, tc.s.OK); got != tc.fails {
				t.Errorf("AllFailedOutcome = %v, want %v", got, tc.fails)
			}
		})
	}
}

// TestAllFailedReportSaysSo: the text report of such a run opens with it,
// shows no latency as "–" rather than 0, and a latency threshold without
// a response fails.
func TestAllFailedReportSaysSo(t *testing.T) {
	s := Summary{Requests: 20, Errors: 20, ErrorRate: 1, ErrorKinds: map[string]int64{"connect_refused": 20},
		Status: map[string]int64{"0": 20}, Endpoints: []EndpointSummary{{Name: "home", Requests: 20, Errors: 20, Status: map[string]int64{"0": 20}}}}
	s.Thresholds = EvaluateThresholds(&results.Thresholds{P99: 250 * time.Millisecond}, &s, nil)
	var b bytes.Buffer
	if err := (&Report{Summary: s}).WriteText(&b); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{
		"FAILED: NONE OF THE 20 REQUESTS SUCCEEDED\n  what they got: connect_refused 20\n",
		"  corrected    –     –    –    –    –    –      –    –\n",
		"  home            20   0      20       –       –       –       –  0×20\n",
		"  p99         FAILED  no response       250.0 ms\n",
		"  all_failed  FAILED   0 ok of 20  at least 1 ok\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q:\n%s", want, out)
		}
	}
	if !strings.HasPrefix(out, "FAILED: NONE OF THE 20 REQUESTS SUCCEEDED\n") {
		t.Errorf("the report should open with the failure:\n%s", out)
	}
}
