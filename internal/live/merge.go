package live

import (
	"fmt"
	"slices"
	"sync"
)

// Merge is one view of several shards' live streams, exact: intervals of
// the same time are merged (counts summed, histograms merged, never
// percentiles averaged), at the widest interval any shard has reached.
type Merge struct {
	*hub
	mu     sync.Mutex
	shards []*View
	width  int64
}

// NewMerge merges n shards' streams.
func NewMerge(n int) *Merge {
	m := &Merge{hub: newHub(RunInfo{State: StateWaiting, Shard: fmt.Sprintf("%d shards", n)})}
	for range n {
		m.shards = append(m.shards, NewView(RunInfo{State: StateWaiting}))
	}
	return m
}

// Apply takes shard i's next update (as its dashboard streamed it) and
// publishes the merge's; the merge ends when every shard ended.
func (m *Merge) Apply(i int, u Update) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if i < 0 || i >= len(m.shards) {
		return
	}
	m.shards[i].Apply(u)
	width := int64(0)
	for _, v := range m.shards {
		width = max(width, v.Width())
	}
	if width == 0 {
		return // nothing measured yet
	}
	reset := width != m.width
	m.width = width
	starts := map[int64]bool{}
	for _, iv := range u.Intervals {
		starts[iv.Start/width*width] = true
	}
	var merged []Interval
	byStart := map[int64]int{}
	for _, v := range m.shards {
		for _, iv := range v.Intervals() {
			start := iv.Start / width * width
			if !reset && !starts[start] {
				continue
			}
			k, ok := byStart[start]
			if !ok {
				k = len(merged)
				byStart[start] = k
				merged = append(merged, Interval{Start: start, Width: width})
			}
			merged[k].Merge(&iv)
		}
	}
	run, g := m.combined()
	m.publish(Update{Run: run, Width: width, Reset: reset, Intervals: merged, Gauges: []GaugePoint{g}}, run.State == StateEnded)
}

// combined is the shards' run taken together, and their latest gauges
// summed.
func (m *Merge) combined() (RunInfo, GaugePoint) {
	run := RunInfo{Shard: fmt.Sprintf("%d shards", len(m.shards))}
	var g GaugePoint
	ended, started := 0, 0
	for _, v := range m.shards {
		r := v.Run()
		if run.Plan == "" {
			run.Plan = r.Plan
		}
		if r.StartUnixNs != 0 && (run.StartUnixNs == 0 || r.StartUnixNs < run.StartUnixNs) {
			run.StartUnixNs = r.StartUnixNs
		}
		run.PlannedNs = max(run.PlannedNs, r.PlannedNs)
		if run.Thresholds == nil {
			run.Thresholds = r.Thresholds
		}
		for _, f := range r.Failures {
			if !slices.Contains(run.Failures, f) {
				run.Failures = append(run.Failures, f)
			}
		}
		run.Slots += r.Slots
		switch r.State {
		case StateEnded:
			ended++
			started++
		case StateRunning:
			started++
		}
		p := v.LastGauges()
		g.T = max(g.T, p.T)
		g.Sent += p.Sent
		g.Done += p.Done
		g.Failed += p.Failed
		g.SendLag = max(g.SendLag, p.SendLag)
		g.Connections += p.Connections
		g.Opened += p.Opened
		g.Sessions += p.Sessions
		g.InFlight += p.InFlight
	}
	switch {
	case ended == len(m.shards):
		run.State = StateEnded
	case started > 0:
		run.State = StateRunning
	default:
		run.State = StateWaiting
	}
	return run, g
}
