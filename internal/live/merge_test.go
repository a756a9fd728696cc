package live

import (
	"testing"
)

// tressi watch's merge sums the shards' gauges of now (the largest send
// lag), and merges their series, histograms included, by (endpoint,
// status, error).
func TestMergeSumsGaugesAndSeries(t *testing.T) {
	m := NewMerge(2)
	hist := func(vs ...int64) Hist {
		var h Hist
		for _, v := range vs {
			h.Record(v)
		}
		return h
	}
	shard := func(i int, g GaugePoint, latency ...int64) {
		m.Apply(i, Update{Run: RunInfo{State: StateRunning, Plan: "p"}, Width: 1e9, Gauges: []GaugePoint{g},
			Intervals: []Interval{{Start: 0, Width: 1e9, Due: int64(len(latency)), Series: []Series{
				{Endpoint: "home", Error: "timeout", Requests: 1}, // sorted: status 0 first
				{Endpoint: "home", Status: 200, Requests: int64(len(latency)), OK: int64(len(latency)),
					Responses: int64(len(latency)), Latency: hist(latency...)},
			}}}})
	}
	shard(0, GaugePoint{T: 5e8, Connections: 3, Opened: 4, Sessions: 2, InFlight: 1, SendLag: 700}, 1e6, 2e6)
	shard(1, GaugePoint{T: 6e8, Connections: 5, Opened: 5, Sessions: 7, InFlight: 4, SendLag: 300}, 3e6)
	g := m.View().LastGauges()
	if want := (GaugePoint{T: 6e8, Connections: 8, Opened: 9, Sessions: 9, InFlight: 5, SendLag: 700}); g != want {
		t.Fatalf("merged gauges %+v, want %+v", g, want)
	}
	ivs := m.View().Intervals()
	if len(ivs) != 1 || len(ivs[0].Series) != 2 {
		t.Fatalf("merged intervals %+v", ivs)
	}
	timeout, ok := ivs[0].Series[0], ivs[0].Series[1]
	if ok.Requests != 3 || ok.Latency.Count != 3 || ok.Latency.Min != 1e6 || ok.Latency.Max != 3e6 || ok.Latency.Sum != 6e6 ||
		timeout.Error != "timeout" || timeout.Requests != 2 || timeout.Latency.Count != 0 {
		t.Fatalf("merged series %+v", ivs[0].Series)
	}
}
