// Package metrics exports a run's live view to Prometheus: /metrics for a
// scrape (client_golang) and Remote Write 1.0 pushes. Both read one list
// of series (Snapshot), so a scrape and a push of the same instant agree.
package metrics

import (
	"math"
	"slices"

	"github.com/tressi/tressi/internal/live"
)

// The metric names, in docs/contracts.md.
const (
	RequestsTotal    = "tressi_requests_total"
	RequestDuration  = "tressi_request_duration_seconds"
	ServiceDuration  = "tressi_service_duration_seconds"
	SendLag          = "tressi_send_lag_seconds"
	OpenConnections  = "tressi_open_connections"
	ActiveSessions   = "tressi_active_sessions"
	InFlight         = "tressi_in_flight_requests"
	OfferedRate      = "tressi_offered_rate"
	AchievedRate     = "tressi_achieved_rate"
	SearchProbeRate  = "tressi_search_probe_rate"
	labelRunID       = "run_id"
	labelPlan        = "plan"
	labelShard       = "shard"
	labelTarget      = "target"
	labelEndpoint    = "endpoint"
	labelStatus      = "status"
	labelError       = "error"
	histogramBuckets = 1.05 // each bucket's bound is 5% above the one before
)

// Bounds are the histograms' bucket upper bounds in seconds: 100 µs to
// two minutes, each 5% above the one before, so a quantile interpolated
// in a bucket (histogram_quantile) is within 5% of the true value.
var Bounds = func() []float64 {
	var b []float64
	for v := 100e-6; v < 120; v *= histogramBuckets {
		b = append(b, v)
	}
	return b
}()

// Labels identify a run's series: run_id (the view's), plan and shard go
// on every one.
type Labels struct {
	Plan, Shard string
	// Targets maps an endpoint name to its target's name.
	Targets map[string]string
}

// Counter is one tressi_requests_total series.
type Counter struct {
	Target, Endpoint, Error string
	Status                  int
	Value                   int64
}

// Histogram is one (endpoint, status, error)'s classic histogram:
// Counts[i] values ≤ Bounds[i] (cumulative), Count in all (the +Inf
// bucket), Sum in seconds.
type Histogram struct {
	Target, Endpoint, Error string
	Status                  int
	Counts                  []int64
	Count                   int64
	Sum                     float64
}

// Snapshot is every series of a run at one instant.
type Snapshot struct {
	Requests         []Counter
	Request, Service []Histogram
	// SendLag is the largest send lag of the recorder's last second.
	SendLag float64
	// Connections are open now; Sessions the scenario sessions or users
	// active now; InFlight the requests sent and not yet answered.
	Connections, Sessions, InFlight float64
	// OfferedRate and AchievedRate are the last whole interval's requests
	// due and responses completed, per second.
	OfferedRate, AchievedRate float64
	// Search says the run is a capacity search: ProbeRate is then the
	// value of the probe running now (0 between probes).
	Search    bool
	ProbeRate float64
}

// gauges are the snapshot's gauges by metric name.
func (s *Snapshot) gauges() map[string]float64 {
	g := map[string]float64{SendLag: s.SendLag, OpenConnections: s.Connections, ActiveSessions: s.Sessions,
		InFlight: s.InFlight, OfferedRate: s.OfferedRate, AchievedRate: s.AchievedRate}
	if s.Search {
		g[SearchProbeRate] = s.ProbeRate
	}
	return g
}

// Take reads a snapshot of v.
func Take(v *live.View, l *Labels) Snapshot {
	ivs := v.Intervals()
	var s Snapshot
	for _, sr := range live.SumSeries(ivs) {
		target := l.Targets[sr.Endpoint]
		s.Requests = append(s.Requests, Counter{Target: target, Endpoint: sr.Endpoint, Status: sr.Status, Error: sr.Error, Value: sr.Requests})
		if sr.Latency.Count > 0 { // no response, no histogram
			s.Request = append(s.Request, classic(target, &sr, &sr.Latency))
			s.Service = append(s.Service, classic(target, &sr, &sr.Service))
		}
	}
	g := v.LastGauges()
	s.SendLag, s.Connections = float64(g.SendLag)/1e9, float64(g.Connections)
	s.Sessions, s.InFlight = float64(g.Sessions), float64(g.InFlight)
	s.Search, s.ProbeRate = v.Run().Search != nil, g.ProbeRate
	// The last interval that has ended: the current one is still filling.
	for k := len(ivs) - 1; k >= 0; k-- {
		if iv := &ivs[k]; iv.Start+iv.Width <= g.T || v.Run().State == live.StateEnded {
			sec := float64(iv.Width) / 1e9
			s.OfferedRate, s.AchievedRate = float64(iv.Due)/sec, float64(iv.Completed())/sec
			break
		}
	}
	return s
}

// classic folds a series' sparse HDR histogram into the classic buckets: each HDR
// bucket (1/128 wide) counts in the first bound at or above its upper
// edge.
func classic(target string, of *live.Series, h *live.Hist) Histogram {
	out := Histogram{Target: target, Endpoint: of.Endpoint, Status: of.Status, Error: of.Error,
		Counts: make([]int64, len(Bounds)), Count: h.Count, Sum: float64(h.Sum) / 1e9}
	h.Each(func(idx int32, n int64) {
		edge := float64(live.UpperEdge(idx)) / 1e9
		if i, _ := slices.BinarySearch(Bounds, edge); i < len(Bounds) {
			out.Counts[i] += n
		}
	})
	for i := 1; i < len(out.Counts); i++ {
		out.Counts[i] += out.Counts[i-1]
	}
	return out
}

// staleNaN is Prometheus' stale marker: a NaN with this bit pattern ends a
// series at its timestamp.
var staleNaN = math.Float64frombits(0x7ff0000000000002)
