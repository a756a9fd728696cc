package report

import (
	"strings"
	"testing"

	"github.com/tressi/tressi/results"
)

// The report reads meta.json's check tallies, shows them per endpoint and
// check, and judges check_rate on them as the executor does.
func TestChecksFromMeta(t *testing.T) {
	env := map[string]any{"checks": []any{
		map[string]any{"endpoint": "item", "check": "status_ok", "run": 90.0, "failed": 9.0},
		map[string]any{"endpoint": "item", "check": "size", "run": 90.0, "failed": 0.0},
	}}
	s := &Summary{Checks: checkTallies(env)}
	if len(s.Checks) != 2 || s.Checks[0] != (results.CheckTally{Endpoint: "item", Check: "status_ok", Run: 90, Failed: 9}) {
		t.Fatalf("tallies %+v", s.Checks)
	}
	sec := checksSection(s)
	if len(sec.Rows) != 2 || sec.Rows[0][4] != "90.00%" || !strings.Contains(sec.Notes[0], "171 of 180 checks held") {
		t.Errorf("section %+v", sec)
	}
	for _, tc := range []struct {
		limit float64
		ok    bool
	}{{0.95, true}, {0.951, false}} {
		v := EvaluateThresholds(&results.Thresholds{CheckRate: tc.limit, AllowAllFailed: true}, s, nil)
		if len(v) != 1 || v[0].Name != "check_rate" || v[0].OK != tc.ok || v[0].Actual != 0.95 {
			t.Errorf("limit %v: verdict %+v", tc.limit, v)
		}
	}
	if checkTallies(map[string]any{}) != nil {
		t.Error("tallies without checks")
	}
}
