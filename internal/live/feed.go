package live

import (
	"sync"
	"time"

	"github.com/tressi/tressi/exec"
	"github.com/tressi/tressi/internal/background"
	"github.com/tressi/tressi/results"
)

// Feed is one run's live view as it runs: it takes the rows
// (exec.Options.Observe) and the gauges (exec.Options.Started), publishes
// an Update every interval to its subscribers (a dashboard's browsers, a
// remote-write pusher) and keeps the View a late one starts from. No
// subscriber ever holds the run up.
type Feed struct {
	*hub
	agg *Aggregator

	mu     sync.Mutex
	gauges func() exec.Gauges
	run    RunInfo
	search *searchRun // nil but for a capacity search (NewSearchFeed)
}

// NewFeed is the feed of run (its State is set as the run goes).
func NewFeed(run RunInfo) *Feed {
	run.State = StateWaiting
	return &Feed{hub: newHub(run), agg: NewAggregator(0, 0), run: run}
}

// Observe is exec.Options.Observe.
func (f *Feed) Observe(row *results.Row, ok bool) {
	if f.search != nil {
		f.search.observe(f.agg, row, ok)
		return
	}
	f.agg.Observe(row, ok)
}

// Started is exec.Options.Started.
func (f *Feed) Started(l exec.LiveRun) {
	f.agg.SetEndpoints(l.Endpoints)
	if f.search != nil && !f.search.started(f.agg, l) {
		return // a later probe: the run's id and start are the first's
	}
	f.mu.Lock()
	f.gauges = l.Gauges
	if f.search != nil {
		f.gauges = nil // read through the search, on its clock
	}
	f.run.RunID, f.run.StartUnixNs = l.RunID, l.Start.UnixNano()
	f.run.State = StateRunning
	f.mu.Unlock()
}

// Run publishes an update every interval until stop is closed, then one
// last one marked ended: every row the recorder took is in it.
func (f *Feed) Run(stop <-chan struct{}) {
	background.Thread() // never beside a loop's sends (see package background)
	t := time.NewTicker(DefaultInterval)
	defer t.Stop()
	for {
		select {
		case <-stop:
			f.publishNow(true)
			return
		case <-t.C:
			f.publishNow(false)
		}
	}
}

func (f *Feed) publishNow(end bool) {
	width, reset, changed := f.agg.Flush()
	f.mu.Lock()
	var points []GaugePoint
	if f.gauges != nil {
		g := f.gauges()
		points = append(points, pointOf(&g, 0))
		f.run.Failures = g.Failures
	}
	if f.search != nil && f.run.State != StateWaiting {
		g, rate := f.search.gaugesNow()
		points = append(points, pointOf(&g, rate))
		f.run.Search = f.search.tableNow()
	}
	if end {
		f.run.State = StateEnded
	}
	run := f.run
	f.mu.Unlock()
	f.publish(Update{Run: run, Width: width, Reset: reset, Intervals: changed, Gauges: points}, end)
}

func pointOf(g *exec.Gauges, probeRate float64) GaugePoint {
	return GaugePoint{T: g.Now, Sent: g.Sent, Done: g.Done, Failed: g.Failed, SendLag: g.SendLag,
		Connections: g.Connections, Opened: g.Opened, Sessions: g.Sessions, InFlight: g.InFlight, ProbeRate: probeRate}
}
