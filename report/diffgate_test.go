package report

import "testing"

func TestParseGate(t *testing.T) {
	good := []struct {
		in     string
		metric string
		op     string
		value  float64
		unit   string
	}{
		{"p99>+10%", "p99", ">", 10, "%"},
		{"error_rate>+0.5pp", "error_rate", ">", 0.5, "pp"},
		{"throughput<-5%", "throughput", "<", -5, "%"},
		{" p50 > 2ms ", "p50", ">", 2, "ms"},
	}
	for _, c := range good {
		g, err := ParseGate(c.in)
		if err != nil || g.Metric != c.metric || g.Op != c.op || g.Value != c.value || g.Unit != c.unit {
			t.Errorf("ParseGate(%q) = %+v, %v", c.in, g, err)
		}
	}
	for _, bad := range []string{"", "p99", "p99>10", "latency>+10%", "throughput>+2pp", "p99=+10%"} {
		if _, err := ParseGate(bad); err == nil {
			t.Errorf("ParseGate(%q) accepted", bad)
		}
	}
}

func TestEvaluateGates(t *testing.T) {
	d := &Diff{
		A: DiffSide{ErrorRate: 0.01, ThroughputRPS: 100, Latency: Percentiles{P99: 10}},
		B: DiffSide{ErrorRate: 0.02, ThroughputRPS: 94, Latency: Percentiles{P99: 10.5}},
	}
	cases := []struct {
		gate  string
		holds bool
	}{
		{"p99>+10%", false}, {"p99>+4%", true}, {"error_rate>+0.5pp", true}, {"error_rate>+1.5pp", false},
		{"throughput<-5%", true}, {"throughput<-10%", false}, {"p99>+0.4ms", true},
	}
	for _, c := range cases {
		g, err := ParseGate(c.gate)
		if err != nil {
			t.Fatal(err)
		}
		if got := EvaluateGates([]Gate{g}, d)[0]; got.Holds != c.holds {
			t.Errorf("%s: holds=%v (change %g), want %v", c.gate, got.Holds, got.Change, c.holds)
		}
	}
}

// FuzzParseGate: any condition text is parsed or refused, never a panic,
// and what parses names a known metric and unit.
func FuzzParseGate(f *testing.F) {
	for _, s := range []string{"p99>+10%", "error_rate>+0.5pp", "throughput<-5%", "p50>2ms", ">", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		g, err := ParseGate(s)
		if err != nil {
			return
		}
		if _, ok := gateMetrics[g.Metric]; !ok || (g.Op != ">" && g.Op != "<") {
			t.Fatalf("ParseGate(%q) = %+v", s, g)
		}
	})
}
