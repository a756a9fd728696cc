package report

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// Gate is one --fail-on condition: METRIC OP SIGNED-VALUE UNIT, read as
// "B moved from A by more than this", e.g. p99>+10% (p99 grew by over
// 10 %), error_rate>+0.5pp (the error rate rose by over half a
// percentage point), throughput<-5% (throughput fell by over 5 %).
type Gate struct {
	Text   string  `json:"condition"`
	Metric string  `json:"metric"`
	Op     string  `json:"op"` // ">" or "<"
	Value  float64 `json:"value"`
	Unit   string  `json:"unit"` // "%", "pp" or "ms"
}

// GateResult is a gate judged on a diff.
type GateResult struct {
	Gate
	// Change is B − A in the gate's unit.
	Change float64 `json:"change"`
	Holds  bool    `json:"holds"`
	Detail string  `json:"detail"`
}

// gateMetrics are the metrics a gate may name, and the units each takes.
var gateMetrics = map[string][]string{
	"p50": {"%", "ms"}, "p90": {"%", "ms"}, "p95": {"%", "ms"}, "p99": {"%", "ms"}, "p999": {"%", "ms"},
	"mean": {"%", "ms"}, "max": {"%", "ms"},
	"error_rate":   {"pp", "%"},
	"throughput":   {"%"},
	"failed_slots": {"%"},
}

var gateSyntax = regexp.MustCompile(`^\s*([a-z0-9_]+)\s*([<>])\s*([+-]?[0-9]*\.?[0-9]+)\s*(%|pp|ms)\s*$`)

// ParseGate reads one --fail-on condition.
func ParseGate(s string) (Gate, error) {
	m := gateSyntax.FindStringSubmatch(s)
	if m == nil {
		return Gate{}, fmt.Errorf("--fail-on %q: want METRIC>+N%% or METRIC<-N%% (units %%, pp, ms), e.g. 'p99>+10%%', 'error_rate>+0.5pp', 'throughput<-5%%'", s)
	}
	units, ok := gateMetrics[m[1]]
	if !ok {
		names := make([]string, 0, len(gateMetrics))
		for n := range gateMetrics {
			names = append(names, n)
		}
		slices.Sort(names)
		return Gate{}, fmt.Errorf("--fail-on %q: unknown metric %q; use one of %s", s, m[1], strings.Join(names, ", "))
	}
	unitOK := false
	for _, u := range units {
		unitOK = unitOK || u == m[4]
	}
	if !unitOK {
		return Gate{}, fmt.Errorf("--fail-on %q: %s is compared in %s, not %s", s, m[1], strings.Join(units, " or "), m[4])
	}
	v, _ := strconv.ParseFloat(m[3], 64) // the pattern admits only numbers
	return Gate{Text: strings.TrimSpace(s), Metric: m[1], Op: m[2], Value: v, Unit: m[4]}, nil
}

// EvaluateGates judges gates on d.
func EvaluateGates(gates []Gate, d *Diff) []GateResult {
	var out []GateResult
	for _, g := range gates {
		a, b := gateValues(g.Metric, d)
		var change float64
		var desc string
		switch g.Unit {
		case "pp":
			change = (b - a) * 100
			desc = fmt.Sprintf("%.3f%% → %.3f%%, %+.3f pp", a*100, b*100, change)
		case "ms":
			change = b - a
			desc = fmt.Sprintf("%.3f → %.3f ms, %+.3f ms", a, b, change)
		default:
			if a == 0 {
				if b > 0 {
					change = 100 * b // any rise from zero counts as b×100 %
				}
			} else {
				change = (b - a) / a * 100
			}
			desc = fmt.Sprintf("%s → %s, %+.2f%%", fmtNum(a), fmtNum(b), change)
		}
		holds := change > g.Value
		if g.Op == "<" {
			holds = change < g.Value
		}
		out = append(out, GateResult{Gate: g, Change: change, Holds: holds, Detail: desc})
	}
	return out
}

func fmtNum(v float64) string { return strconv.FormatFloat(v, 'g', 6, 64) }

func gateValues(metric string, d *Diff) (a, b float64) {
	pick := func(p Percentiles) float64 {
		switch metric {
		case "p50":
			return p.P50
		case "p90":
			return p.P90
		case "p95":
			return p.P95
		case "p99":
			return p.P99
		case "p999":
			return p.P999
		case "mean":
			return p.Mean
		}
		return p.Max
	}
	switch metric {
	case "error_rate":
		return d.A.ErrorRate, d.B.ErrorRate
	case "throughput":
		return d.A.ThroughputRPS, d.B.ThroughputRPS
	case "failed_slots":
		return float64(d.A.FailedSlots), float64(d.B.FailedSlots)
	}
	return pick(d.A.Latency), pick(d.B.Latency)
}
