package live

import (
	"sync"
	"time"

	"github.com/tressi/tressi/exec"
	"github.com/tressi/tressi/results"
)

// Feed is one run's live view as it runs: it takes the rows
// (exec.Options.Observe) and the gauges (exec.Options.Started), publishes
// an Update every interval to its subscribers (a dashboard's browsers, a
// remote-write pusher) and keeps the View a late one starts from. No
// subscriber ever holds the run up: one that falls behind is dropped.
type Feed struct {
	agg  *Aggregator
	view *View

	mu     sync.Mutex
	gauges func() exec.Gauges
	run    RunInfo
	subs   map[chan Update]struct{}
	ended  bool
	done   chan struct{} // closed when the run ended and the last update went out
}

// NewFeed is the feed of run (its State is set as the run goes).
func NewFeed(run RunInfo) *Feed {
	run.State = StateWaiting
	return &Feed{agg: NewAggregator(0, 0), view: NewView(run), run: run,
		subs: map[chan Update]struct{}{}, done: make(chan struct{})}
}

// Observe is exec.Options.Observe.
func (f *Feed) Observe(row *results.Row, ok bool) { f.agg.Observe(row, ok) }

// Started is exec.Options.Started.
func (f *Feed) Started(l exec.LiveRun) {
	f.agg.SetEndpoints(l.Endpoints)
	f.mu.Lock()
	f.gauges = l.Gauges
	f.run.StartUnixNs = l.Start.UnixNano()
	f.run.State = StateRunning
	f.mu.Unlock()
}

// SetRunID names the run once exec made it up.
func (f *Feed) SetRunID(id string) {
	f.mu.Lock()
	f.run.RunID = id
	f.mu.Unlock()
}

// View is the state so far.
func (f *Feed) View() *View { return f.view }

// Done is closed once the run ended and its last update went out.
func (f *Feed) Done() <-chan struct{} { return f.done }

// Run publishes an update every interval until stop is closed, then one
// last one marked ended: every row the recorder took is in it.
func (f *Feed) Run(stop <-chan struct{}) {
	t := time.NewTicker(DefaultInterval)
	defer t.Stop()
	for {
		select {
		case <-stop:
			f.publish(true)
			return
		case <-t.C:
			f.publish(false)
		}
	}
}

func (f *Feed) publish(end bool) {
	width, reset, changed := f.agg.Flush()
	f.mu.Lock() // held throughout: a Subscribe sees the view before or after u, whole
	defer f.mu.Unlock()
	var points []GaugePoint
	if f.gauges != nil {
		g := f.gauges()
		points = append(points, GaugePoint{T: g.Now, Sent: g.Sent, Done: g.Done, Failed: g.Failed,
			SendLag: g.SendLag, Connections: g.Connections})
	}
	if end {
		f.run.State = StateEnded
	}
	run := f.run
	if reset {
		points = append(f.view.Full().Gauges, points...)
	}
	u := f.view.Apply(Update{Run: run, Width: width, Reset: reset, Intervals: changed, Gauges: points})
	for ch := range f.subs {
		select {
		case ch <- u:
		default: // too slow: it reconnects and starts from the view
			delete(f.subs, ch)
			close(ch)
		}
	}
	if end {
		f.ended = true
		for ch := range f.subs {
			close(ch)
		}
		clear(f.subs)
		close(f.done)
	}
}

// Subscribe returns the view so far and a channel of the updates after
// it, closed when the run ended (or the subscriber fell behind); cancel
// lets it go. After the end the channel comes closed.
func (f *Feed) Subscribe() (first Update, updates <-chan Update, cancel func()) {
	f.mu.Lock()
	defer f.mu.Unlock()
	first = f.view.Full()
	ch := make(chan Update, 16)
	if f.ended {
		close(ch)
		return first, ch, func() {}
	}
	f.subs[ch] = struct{}{}
	return first, ch, func() {
		f.mu.Lock()
		defer f.mu.Unlock()
		if _, ok := f.subs[ch]; ok {
			delete(f.subs, ch)
			close(ch)
		}
	}
}
