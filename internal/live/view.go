package live

import (
	"slices"
	"sync"

	"github.com/tressi/tressi/search"
)

// RunInfo says which run a view shows and how far it is.
type RunInfo struct {
	Plan        string `json:"plan"`
	RunID       string `json:"run_id"`
	Shard       string `json:"shard"` // i/n
	StartUnixNs int64  `json:"start_unix_ns"`
	PlannedNs   int64  `json:"planned_ns"` // the schedule's duration
	// Slots is how many slots (open model) the shard replays; 0 when not
	// known before the run (the closed model).
	Slots int64 `json:"slots"`
	// State is waiting (for --start-at, or the engine), running or ended.
	State string `json:"state"`
	// Thresholds are the plan's; Failures the live ones failed so far, as
	// "name: detail" (the verdict at the end is the report's).
	Thresholds []Threshold `json:"thresholds,omitempty"`
	Failures   []string    `json:"failures,omitempty"`
	// Search is a capacity search's probe table; nil for any other run.
	Search *SearchTable `json:"search,omitempty"`
}

// SearchTable is a capacity search's probes as a live view shows them:
// those judged, with search.json's figures and verdict, and the one
// running, with the figures of its hold so far.
type SearchTable struct {
	Unit     string         `json:"unit"` // of the probes' values: req/s or users
	Criteria []string       `json:"criteria,omitempty"`
	Probes   []search.Probe `json:"probes"`
}

// Threshold is one of the plan's thresholds as a live view shows it.
type Threshold struct {
	Name  string `json:"name"`
	Limit string `json:"limit"`
	Live  bool   `json:"live"` // judged while the run goes; else only at the end
}

// The states of a run.
const (
	StateWaiting = "waiting"
	StateRunning = "running"
	StateEnded   = "ended"
)

// GaugePoint is a run's gauges at one instant (exec.Gauges).
type GaugePoint struct {
	T       int64 `json:"t_ns"` // the run's clock
	Sent    int64 `json:"sent"`
	Done    int64 `json:"done"`
	Failed  int64 `json:"failed"`
	SendLag int64 `json:"send_lag_ns"` // the largest of the recorder's last second
	// Connections are open now, Opened were opened so far; Sessions are
	// the scenario sessions (open model) or users (closed model) active
	// now; InFlight the requests sent and not yet answered.
	Connections int64 `json:"connections"`
	Opened      int64 `json:"connections_opened"`
	Sessions    int64 `json:"sessions"`
	InFlight    int64 `json:"in_flight"`
	// ProbeRate is the value of a capacity search's probe running now
	// (req/s, or users in the closed model); 0 between probes and in any
	// other run.
	ProbeRate float64 `json:"probe_rate,omitempty"`
}

// Update is one step of a live view, as the dashboard streams it: the
// intervals that changed (each replaces the one of the same start), the
// gauges read since, and the totals over everything so far. Reset: drop
// what you hold, this is the whole history (a late reader's first update,
// or the intervals widened).
type Update struct {
	Seq       uint64       `json:"seq"`
	Run       RunInfo      `json:"run"`
	Width     int64        `json:"w_ns"`
	Reset     bool         `json:"reset"`
	Intervals []Interval   `json:"intervals"`
	Gauges    []GaugePoint `json:"gauges"`
	Totals    Totals       `json:"totals"`
}

// View is the state a stream of Updates builds: what a late reader is sent
// first, what the metrics read.
type View struct {
	mu        sync.Mutex
	seq       uint64
	run       RunInfo
	width     int64
	intervals map[int64]Interval
	gauges    []GaugePoint
	totals    Totals
}

// maxGauges bounds the gauges kept: past it every other point is dropped.
const maxGauges = 2 * DefaultMaxIntervals

// NewView is an empty view of run.
func NewView(run RunInfo) *View {
	return &View{run: run, intervals: map[int64]Interval{}, totals: Sum(nil)}
}

// Apply folds u in and returns it with the view's sequence number and
// totals filled.
func (v *View) Apply(u Update) Update {
	v.mu.Lock()
	defer v.mu.Unlock()
	if u.Reset || u.Width != v.width {
		clear(v.intervals)
		v.width = u.Width
		if !u.Reset {
			// A width change always comes as a reset; a stream that
			// skipped one is read as one anyway.
			u.Reset = true
		}
	}
	for _, iv := range u.Intervals {
		v.intervals[iv.Start] = iv
	}
	if u.Reset {
		v.gauges = append(v.gauges[:0], u.Gauges...)
	} else {
		v.gauges = append(v.gauges, u.Gauges...)
	}
	if len(v.gauges) > maxGauges {
		v.gauges = thinOut(v.gauges)
	}
	if u.Run.State != "" {
		v.run = u.Run
	}
	v.seq++
	v.totals = Sum(v.sorted())
	u.Seq, u.Run, u.Totals = v.seq, v.run, v.totals
	if u.Reset {
		u.Gauges = slices.Clone(v.gauges)
	}
	return u
}

func thinOut(g []GaugePoint) []GaugePoint {
	out := g[:0]
	for i := 0; i < len(g); i += 2 {
		out = append(out, g[i])
	}
	return out
}

func (v *View) sorted() []Interval {
	out := make([]Interval, 0, len(v.intervals))
	for _, iv := range v.intervals {
		out = append(out, iv)
	}
	slices.SortFunc(out, func(a, b Interval) int { return int(a.Start - b.Start) })
	return out
}

// Full is the view as one Update with Reset set: the whole history.
func (v *View) Full() Update {
	v.mu.Lock()
	defer v.mu.Unlock()
	return Update{Seq: v.seq, Run: v.run, Width: v.width, Reset: true, Intervals: v.sorted(),
		Gauges: slices.Clone(v.gauges), Totals: v.totals}
}

// Intervals are the view's intervals in time order.
func (v *View) Intervals() []Interval {
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.sorted()
}

// Totals are the view's totals.
func (v *View) Totals() Totals {
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.totals
}

// Width is the view's interval width in ns; 0 before any update.
func (v *View) Width() int64 {
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.width
}

// Run is the view's run.
func (v *View) Run() RunInfo {
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.run
}

// LastGauges is the latest gauge point, zero when none.
func (v *View) LastGauges() GaugePoint {
	v.mu.Lock()
	defer v.mu.Unlock()
	if len(v.gauges) == 0 {
		return GaugePoint{}
	}
	return v.gauges[len(v.gauges)-1]
}
