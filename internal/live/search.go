package live

import (
	"slices"
	"sync"
	"time"

	"github.com/tressi/tressi/exec"
	"github.com/tressi/tressi/results"
	"github.com/tressi/tressi/search"
)

// searchRun is what a Feed of a capacity search keeps beside a plain
// run's. The probes run one after another, each an exec.Run with its own
// instant zero; the feed shows them on one clock, the first probe's: each
// probe's rows and gauges are shifted by how long after the first it
// started, so the charts show the search as it climbed and the counts
// add up over the probes.
type searchRun struct {
	mu     sync.Mutex
	origin time.Time // the first probe's instant zero
	offset int64     // the running probe's instant zero on that clock
	// waiting: a probe was announced and has not started; its rows wait
	// in held until its instant zero is known.
	waiting bool
	held    []heldRow
	gauges  func() exec.Gauges // the running probe's; nil between probes
	base    exec.Gauges        // Sent, Done and Failed of the probes before
	table   SearchTable
	figures func() search.Probe // the running probe's row; nil between probes
	value   float64             // the running probe's value
}

type heldRow struct {
	row results.Row
	ok  bool
}

// NewSearchFeed is the feed of a capacity search whose probes' values
// count unit (search.UnitOf) and pass by criteria (search.Criteria). It is
// the search's search.Live, and every probe's exec.Options.Observe and
// Started.
func NewSearchFeed(run RunInfo, unit string, criteria []string) *Feed {
	f := NewFeed(run)
	f.search = &searchRun{table: SearchTable{Unit: unit, Criteria: criteria, Probes: []search.Probe{}}}
	return f
}

// Probing is search.Live's: the probe is about to run.
func (f *Feed) Probing(p search.Probe, figures func() search.Probe) {
	s := f.search
	s.mu.Lock()
	defer s.mu.Unlock()
	s.waiting, s.value, s.figures = true, p.Offered, figures
}

// Judged is search.Live's: the probe running ended with p's verdict.
func (f *Feed) Judged(p search.Probe) {
	s := f.search
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.gauges != nil {
		g := s.gauges()
		s.base.Sent += g.Sent
		s.base.Done += g.Done
		s.base.Failed += g.Failed
	}
	s.gauges, s.figures, s.value = nil, nil, 0
	s.table.Probes = append(s.table.Probes, p)
}

// observe takes a probe's row onto the search's clock.
func (s *searchRun) observe(agg *Aggregator, row *results.Row, ok bool) {
	s.mu.Lock()
	if s.waiting {
		s.held = append(s.held, heldRow{*row, ok})
		s.mu.Unlock()
		return
	}
	off := s.offset
	s.mu.Unlock()
	shifted := *row
	shift(&shifted, off)
	agg.Observe(&shifted, ok)
}

func shift(row *results.Row, by int64) {
	row.Scheduled += by
	if row.Sent >= 0 {
		row.Sent += by
	}
}

// started takes a probe's start: its rows held so far go in now. first
// says it is the search's first probe.
func (s *searchRun) started(agg *Aggregator, l exec.LiveRun) (first bool) {
	s.mu.Lock()
	first = s.origin.IsZero()
	if first {
		s.origin = l.Start
	}
	s.offset = l.Start.Sub(s.origin).Nanoseconds()
	s.gauges = l.Gauges
	s.waiting = false
	held, off := s.held, s.offset
	s.held = nil
	s.mu.Unlock()
	for i := range held {
		shift(&held[i].row, off)
		agg.Observe(&held[i].row, held[i].ok)
	}
	return first
}

// gaugesNow are the running probe's gauges on the search's clock, the
// probes before counted in; between probes, the clock and those counts.
func (s *searchRun) gaugesNow() (exec.Gauges, float64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var g exec.Gauges
	if s.gauges != nil {
		g = s.gauges()
		g.Now += s.offset
	} else {
		g.Now = time.Since(s.origin).Nanoseconds()
	}
	g.Sent += s.base.Sent
	g.Done += s.base.Done
	g.Failed += s.base.Failed
	return g, s.value
}

// tableNow is the probe table with the running probe's figures so far.
func (s *searchRun) tableNow() *SearchTable {
	s.mu.Lock()
	t, figures := s.table, s.figures
	t.Probes = slices.Clone(t.Probes)
	s.mu.Unlock()
	if figures != nil {
		t.Probes = append(t.Probes, figures())
	}
	return &t
}
