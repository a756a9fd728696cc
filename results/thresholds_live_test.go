package results

import (
	"testing"
	"time"
)

// max is judged on the largest corrected latency, exactly.
func TestEvaluateMax(t *testing.T) {
	h := NewLatencyHistogram()
	for _, v := range []int64{1e6, 2e6, 1500e6} {
		h.Record(v)
	}
	for _, tc := range []struct {
		limit time.Duration
		ok    bool
	}{{2 * time.Second, true}, {1500 * time.Millisecond, true}, {time.Second, false}} {
		r := Evaluate(&Thresholds{Max: tc.limit}, Measures{Requests: 3, OK: 3, Latency: h})
		if len(r) != 1 || r[0].Name != "max" || r[0].OK != tc.ok || r[0].Actual != 1500 || r[0].Unit != "ms" {
			t.Errorf("limit %v: %+v", tc.limit, r)
		}
	}
}
