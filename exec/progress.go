package exec

import (
	"fmt"
	"io"
	"time"

	"github.com/tressi/tressi/compile"
	"github.com/tressi/tressi/exec/internal/run"
)

// monitor runs beside the workers: every tick it sums their counters for
// the live thresholds and, when asked, prints progress.
type monitor struct {
	ex       *run.Executor
	out      io.Writer // nil: no progress
	terminal bool
	total    time.Duration // the stages
	// arrivals is when the last slot is due (arrivalsEnd): before total
	// when the plan ends in stages of rate 0 that give sessions time.
	arrivals time.Duration
	// watch may end the run early (Options.Watch); nil: never.
	watch func(now int64, completed func() int64) string

	lastAt, lastDone int64
	lastLine         int64
}

const (
	monitorTick = 250 * time.Millisecond // a terminal line is redrawn this often
	plainEvery  = 2 * time.Second        // a non-terminal line is printed this often
)

func (m *monitor) run(stop <-chan struct{}) {
	t := time.NewTicker(monitorTick)
	defer t.Stop()
	for {
		select {
		case <-stop:
			if m.out != nil && m.terminal {
				m.print(m.ex.Clock.Now())
				fmt.Fprintln(m.out)
			}
			return
		case <-t.C:
			m.tick()
		}
	}
}

func (m *monitor) sums() (sent, done, failed int64) {
	for _, s := range m.ex.Stats {
		sent += s.Sent.Load()
		done += s.Done.Load()
		failed += s.Failed.Load()
	}
	return
}

func (m *monitor) tick() {
	now := m.ex.Clock.Now()
	if now < 0 {
		return // waiting for --start-at
	}
	_, done, failed := m.sums()
	m.ex.Th.Observe(now, done, failed)
	m.ex.Th.ObserveLatency(now)
	if m.watch != nil {
		completed := func() int64 { _, d, _ := m.sums(); return d }
		if reason := m.watch(now, completed); reason != "" {
			m.ex.Th.StopEarly(reason)
		}
	}
	if m.out == nil {
		return
	}
	if m.terminal || now-m.lastLine >= int64(plainEvery) {
		m.print(now)
		m.lastLine = now
	}
}

func (m *monitor) print(now int64) {
	sent, done, failed := m.sums()
	rate := 0.0
	if dt := now - m.lastAt; dt > 0 { // lastAt starts at the run start (0)
		rate = float64(done-m.lastDone) / (float64(dt) / 1e9)
	}
	m.lastAt, m.lastDone = now, done
	line := fmt.Sprintf("%s  sent %d  %.0f req/s  p50 %s  p99 %s  errors %d",
		m.clockText(time.Duration(now)), sent, rate,
		fmtLatency(m.ex.Rec.P50.Load()), fmtLatency(m.ex.Rec.P99.Load()), failed)
	if lag := time.Duration(m.ex.Rec.Lag.Load()); lag > behindSchedule {
		// The offered load is not going out on time; latencies still
		// count from the due instants, so they stay honest. Requests that
		// waited for a connection are the plan's doing, not the CPU's.
		if waits := m.ex.ConnWaits.Load(); waits > 0 {
			line += fmt.Sprintf("  sent late by %s: %d waited for a connection", fmtLag(lag), waits)
		} else {
			line += "  behind schedule by " + fmtLag(lag)
		}
	}
	if m.terminal {
		fmt.Fprintf(m.out, "\r\x1b[K%s", line)
	} else {
		fmt.Fprintln(m.out, line)
	}
}

// clockText is the line's "elapsed / total". A plan whose last stages have
// rate 0 (the Tinode example leaves its sessions session_max to finish) is
// shown against its arrivals' end, and then as finishing: a 22 s run once
// read "21.5s / 5m3s".
func (m *monitor) clockText(now time.Duration) string {
	end := m.total
	if m.arrivals > 0 && m.arrivals < end {
		end = m.arrivals
	}
	switch {
	case now <= end && end < m.total:
		return fmtDur(now) + " / " + fmtDur(end) + " of arrivals"
	case now <= end || m.total <= 0:
		return fmtDur(now) + " / " + fmtDur(m.total)
	case end < m.total:
		return fmtDur(now) + " (arrivals ended at " + fmtDur(end) + "; sessions finishing, at most " + fmtDur(m.total) + ")"
	}
	// Past the stages: sessions that hold or think past them (hold.hcl).
	return fmtDur(now) + " (arrivals ended at " + fmtDur(end) + "; sessions finishing)"
}

// arrivalsEnd is when the open schedule's last slot is due, to its
// timeline's bucket; the stages' end for the closed model.
func arrivalsEnd(s *compile.Schedule) time.Duration {
	if s.Model != compile.Open {
		return s.Duration
	}
	tl := compile.Summarize(s).Timeline
	last := -1
	for i, n := range tl.Counts {
		if n > 0 {
			last = i
		}
	}
	if last < 0 {
		return s.Duration
	}
	return min(s.Duration, time.Duration(float64(last+1)*tl.BucketS*float64(time.Second)))
}

// behindSchedule is the send lag past which progress says the generator
// is behind (a burst on a busy machine lags a few ms).
const behindSchedule = 50 * time.Millisecond

func fmtDur(d time.Duration) string { return d.Truncate(100 * time.Millisecond).String() }

// fmtLag is a send lag to the millisecond: past behindSchedule (50 ms),
// fmtDur's tenths once printed "behind schedule by 0s".
func fmtLag(d time.Duration) string { return d.Round(time.Millisecond).String() }

func fmtLatency(ns int64) string {
	if ns < 0 {
		return "-"
	}
	return time.Duration(ns).Round(time.Microsecond).String()
}
