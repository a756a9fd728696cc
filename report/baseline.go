package report

import "slices"

// Change is a difference from the baseline: current − baseline, and that
// difference relative to the baseline (nil when the baseline is zero).
type Change struct {
	Abs float64  `json:"abs"`
	Rel *float64 `json:"rel"`
}

func change(cur, base float64) Change {
	c := Change{Abs: cur - base}
	if base != 0 {
		r := (cur - base) / base
		c.Rel = &r
	}
	return c
}

// Delta compares a run with its baseline.
type Delta struct {
	ThroughputRPS Change            `json:"throughput_rps"`
	ErrorRate     Change            `json:"error_rate"`
	Latency       map[string]Change `json:"latency_ms"`
	Service       map[string]Change `json:"service_ms"`
	// Scenarios compares the session durations (p50 and p99) of each
	// scenario that both runs have, by name; left out when there is none.
	Scenarios map[string]map[string]Change `json:"scenarios,omitempty"`
}

// percentileFields names Percentiles' values in report order.
func percentileFields(p Percentiles) []struct {
	Name  string
	Value float64
} {
	return []struct {
		Name  string
		Value float64
	}{{"min", p.Min}, {"mean", p.Mean}, {"p50", p.P50}, {"p90", p.P90}, {"p95", p.P95}, {"p99", p.P99}, {"p999", p.P999}, {"max", p.Max}}
}

func percentileChanges(cur, base Percentiles) map[string]Change {
	m := map[string]Change{}
	b := percentileFields(base)
	for i, f := range percentileFields(cur) {
		m[f.Name] = change(f.Value, b[i].Value)
	}
	return m
}

// NewDelta compares cur with base.
func NewDelta(cur, base *Summary) *Delta {
	return &Delta{
		ThroughputRPS: change(cur.ThroughputRPS, base.ThroughputRPS),
		ErrorRate:     change(cur.ErrorRate, base.ErrorRate),
		Latency:       percentileChanges(cur.Latency, base.Latency),
		Service:       percentileChanges(cur.Service, base.Service),
		Scenarios:     scenarioChanges(cur.Scenarios, base.Scenarios),
	}
}

// sessionQuantiles are the session percentiles a baseline comparison shows:
// the typical session and its tail.
var sessionQuantiles = []string{"p50", "p99"}

func scenarioChanges(cur, base []ScenarioSummary) map[string]map[string]Change {
	var out map[string]map[string]Change
	for _, c := range cur {
		i := slices.IndexFunc(base, func(b ScenarioSummary) bool { return b.Name == c.Name })
		if i < 0 {
			continue
		}
		all := percentileChanges(c.Session, base[i].Session)
		m := map[string]Change{}
		for _, q := range sessionQuantiles {
			m[q] = all[q]
		}
		if out == nil {
			out = map[string]map[string]Change{}
		}
		out[c.Name] = m
	}
	return out
}
