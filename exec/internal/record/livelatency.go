package record

import (
	"sync/atomic"
	"time"

	"github.com/tressi/tressi/results"
)

// liveLatency is the corrected latency of the responses the recorder took
// over the last window, for the live latency thresholds: one histogram per
// second of the recorder's clock in a ring, merged and published once a
// second. The recorder's goroutine owns all but published.
type liveLatency struct {
	ring      []*results.LatencyHistogram
	cur       int
	merged    *results.LatencyHistogram
	published atomic.Pointer[results.Percentiles]
}

func NewLiveLatency(window time.Duration) *liveLatency {
	n := max(int((window+time.Second-1)/time.Second), 1)
	l := &liveLatency{ring: make([]*results.LatencyHistogram, n), merged: results.NewLatencyHistogram()}
	for i := range l.ring {
		l.ring[i] = results.NewLatencyHistogram()
	}
	return l
}

func (l *liveLatency) record(v int64) { l.ring[l.cur].Record(v) }

// publish merges the window, makes its figures the live ones and starts
// the next second, dropping the oldest.
func (l *liveLatency) publish() {
	l.merged = results.NewLatencyHistogram()
	for _, h := range l.ring {
		l.merged.Merge(h)
	}
	p := l.merged.Percentiles()
	l.published.Store(&p)
	l.cur = (l.cur + 1) % len(l.ring)
	l.ring[l.cur] = results.NewLatencyHistogram()
}

// Window is the last published window; nil before the first.
func (l *liveLatency) Window() *results.Percentiles { return l.published.Load() }
