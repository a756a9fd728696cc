package live

import (
	"strconv"
	"sync"
	"time"

	"github.com/tressi/tressi/results"
)

// Aggregator folds a run's rows into intervals as the recorder takes them
// (exec.Options.Observe, on the recorder's goroutine), off the send path.
// Its memory is bounded whatever the run's length: past MaxIntervals, two
// neighbours merge into one twice as wide, exactly (counts summed,
// histograms merged).
type Aggregator struct {
	mu        sync.Mutex
	endpoints []string // names of row.Endpoint, known once the run started
	width     int64
	max       int
	intervals []*interval // i covers [i·width, (i+1)·width)
	dirty     map[int]struct{}
	reset     bool // intervals were merged since the last Flush
	last      int  // the interval of the previous row
	newest    int  // the latest interval made
	sealed    int  // intervals below this one hold sparse histograms only
}

// interval is an Interval while rows still come: its series by key.
type interval struct {
	due     int64
	series  map[seriesKey]*Series
	sendLag Hist
	// sealed: the interval no longer fills (seal); its histograms stay
	// sparse.
	sealed bool
}

type seriesKey struct {
	endpoint, status uint16
	err              results.ErrorKind
}

// Defaults of the aggregation.
const (
	DefaultInterval = time.Second
	// DefaultMaxIntervals keeps the first 20 minutes at one second; a
	// longer run's intervals widen to 2 s, 4 s… as it goes.
	DefaultMaxIntervals = 1200
)

// NewAggregator returns an aggregator of rows into intervals of width (0:
// DefaultInterval), at most maxIntervals of them (0: DefaultMaxIntervals).
func NewAggregator(width time.Duration, maxIntervals int) *Aggregator {
	if width <= 0 {
		width = DefaultInterval
	}
	if maxIntervals < 2 {
		maxIntervals = DefaultMaxIntervals
	}
	return &Aggregator{width: int64(width), max: maxIntervals, dirty: map[int]struct{}{}}
}

// SetEndpoints names the endpoints row.Endpoint indexes (exec.LiveRun's):
// rows may come before, their names are looked up when flushed.
func (a *Aggregator) SetEndpoints(names []string) {
	a.mu.Lock()
	a.endpoints = names
	a.mu.Unlock()
}

// Observe takes one request's row; ok says it got a response with a status
// its endpoint expects. It has exec.Options.Observe's signature.
func (a *Aggregator) Observe(row *results.Row, ok bool) {
	at := row.Scheduled
	if row.Latency >= 0 {
		at += row.Latency
	}
	a.mu.Lock()
	a.at(max(row.Scheduled, 0)).due++
	a.at(max(at, 0)).count(row, ok) // after: the first may have widened them
	a.mu.Unlock()
}

// at is the interval holding instant t, made (and the intervals widened)
// when needed, marked as changed.
func (a *Aggregator) at(t int64) *interval {
	i := int(t / a.width)
	for i >= a.max {
		a.widen()
		i = int(t / a.width)
	}
	for len(a.intervals) <= i {
		a.intervals = append(a.intervals, nil)
	}
	if a.intervals[i] == nil {
		a.intervals[i] = &interval{series: map[seriesKey]*Series{}}
		a.intervals[i].sendLag.Dense()
		a.newest = max(a.newest, i)
	}
	if i != a.last {
		a.dirty[i] = struct{}{}
		a.last = i
	}
	return a.intervals[i]
}

// widen merges every two neighbours into one interval twice as wide.
func (a *Aggregator) widen() {
	n := (len(a.intervals) + 1) / 2
	for i := range n {
		merged := a.intervals[2*i]
		if 2*i+1 < len(a.intervals) {
			if odd := a.intervals[2*i+1]; merged == nil {
				merged = odd
			} else if odd != nil {
				merged.merge(odd)
			}
		}
		a.intervals[i] = merged
	}
	clear(a.intervals[n:])
	a.intervals = a.intervals[:n]
	a.width *= 2
	a.newest /= 2
	a.sealed /= 2
	a.reset = true
	clear(a.dirty)
	a.last = -1
}

func (iv *interval) count(row *results.Row, ok bool) {
	key := seriesKey{row.Endpoint, row.Status, row.Error}
	s := iv.series[key]
	if s == nil {
		s = &Series{Status: int(row.Status), Error: row.Error.String()}
		iv.series[key] = s
	}
	s.Requests++
	s.BytesOut += int64(row.BytesOut)
	s.BytesIn += int64(row.BytesIn)
	if ok {
		s.OK++
	}
	if row.Sent >= 0 {
		iv.sendLag.Record(max(row.Sent-row.Scheduled, 0))
	}
	if row.Latency < 0 {
		return
	}
	s.Responses++
	if s.Latency.Count == denseAfter && !iv.sealed {
		// A busy series: counting into arrays costs an increment per
		// value, where the few values of a rare one (a status seen
		// twice) keep a few buckets.
		s.Latency.Dense()
		s.Service.Dense()
	}
	s.Latency.Record(row.Latency)
	if row.Service >= 0 {
		s.Service.Record(row.Service)
	}
}

// denseAfter is how many responses a series of a filling interval counts
// sparse before its histograms turn dense.
const denseAfter = 64

func (iv *interval) merge(o *interval) {
	iv.due += o.due
	for k, s := range o.series {
		t := iv.series[k]
		if t == nil {
			iv.series[k] = s
			continue
		}
		t.Add(s)
	}
	iv.sendLag.Merge(&o.sendLag)
}

// export is iv as an Interval, copied, its endpoints named by names.
func (iv *interval) export(start, width int64, names []string) Interval {
	out := Interval{Start: start, Width: width, Due: iv.due, SendLag: iv.sendLag.Clone()}
	for k, s := range iv.series {
		c := s.Clone()
		c.Endpoint = endpointName(names, k.endpoint)
		out.Series = append(out.Series, c)
	}
	sortSeries(out.Series)
	return out
}

// Flush returns the intervals that changed since the last Flush, copied,
// and the width they have now. reset says the intervals were widened
// meanwhile: changed is then every interval, and what a reader held
// before is to be dropped.
func (a *Aggregator) Flush() (width int64, reset bool, changed []Interval) {
	a.mu.Lock()
	defer a.mu.Unlock()
	reset, a.reset = a.reset, false
	for i, iv := range a.intervals {
		if iv == nil {
			continue
		}
		if _, ok := a.dirty[i]; ok || reset {
			changed = append(changed, iv.export(int64(i)*a.width, a.width, a.endpoints))
		}
	}
	clear(a.dirty)
	a.seal()
	// The current interval goes out again at the next Flush even when no
	// new row lands in another one.
	a.last = -1
	return a.width, reset, changed
}

// endpointName is names[i], or a name saying which index it was when the
// names are not known (a row before the run said them: never in tressi).
func endpointName(names []string, i uint16) string {
	if int(i) < len(names) {
		return names[i]
	}
	return "endpoint_" + strconv.Itoa(int(i))
}

// sealAfter is how many intervals behind the newest one an interval keeps
// its dense histograms: a response is recorded within about a second of
// its end (a sender's flush age), so later rows are few, and go to the
// sparse histograms.
const sealAfter = 3

// seal turns the histograms of intervals no longer filling sparse: a few
// hundred buckets each instead of thousands of counters.
func (a *Aggregator) seal() {
	for ; a.sealed < a.newest-sealAfter && a.sealed < len(a.intervals); a.sealed++ {
		iv := a.intervals[a.sealed]
		if iv == nil {
			continue
		}
		iv.sealed = true
		iv.sendLag.Seal()
		for _, s := range iv.series {
			s.Latency.Seal()
			s.Service.Seal()
		}
	}
}
