package exec

import (
	"fmt"
	"time"

	"github.com/tressi/tressi/results"
)

// DefaultStartTolerance is how late a shard may reach its --start-at and
// still run. Past it the shard refuses: replaying the missed part of the
// schedule at once would send a burst the plan never asked for, and the
// shard would no longer run beside the others.
const DefaultStartTolerance = time.Second

// LateStartError is the refusal of a run whose shared start time had
// already passed by more than the tolerance.
type LateStartError struct {
	StartAt   time.Time
	Late      time.Duration
	Tolerance time.Duration
}

func (e *LateStartError) Error() string {
	return fmt.Sprintf("refusing to start: --start-at %s passed %s ago, more than the start tolerance of %s; "+
		"running now would send the missed slots in one burst and out of step with the other shards. "+
		"Start every shard again with a later --start-at (or widen --start-tolerance)",
		e.StartAt.UTC().Format(time.RFC3339Nano), e.Late.Round(time.Millisecond), e.Tolerance)
}

// checkStart refuses a start that has passed by more than tolerance; a zero
// startAt (start now) always passes.
func checkStart(startAt, now time.Time, tolerance time.Duration) error {
	if startAt.IsZero() {
		return nil
	}
	if tolerance <= 0 {
		tolerance = DefaultStartTolerance
	}
	if late := now.Sub(startAt); late > tolerance {
		// An input error: the command line asked for a start that has
		// passed (exit 1), not something that went wrong inside.
		return &InputError{Err: &LateStartError{StartAt: startAt, Late: late, Tolerance: tolerance}}
	}
	return nil
}

// firstSend remembers the earliest send of a run, to say how far the first
// request went out from its due instant: the skew between a shard's clock
// and the schedule it shares with the others.
type firstSend struct {
	seen      bool
	sent      int64 // ns after instant zero
	scheduled int64 // its slot's due instant, ns after instant zero
}

// see takes one recorded row (the recorder's goroutine only).
func (f *firstSend) see(row *results.Row) {
	if row.Sent >= 0 && (!f.seen || row.Sent < f.sent) {
		f.seen, f.sent, f.scheduled = true, row.Sent, row.Scheduled
	}
}

// fill writes what the run's start looked like into meta.json.
func (f *firstSend) fill(m *Meta, tolerance time.Duration) {
	m.StartTolerance = tolerance.String()
	if !f.seen {
		return
	}
	at := m.Start.Add(time.Duration(f.sent))
	m.FirstSend = &at
	skew := float64(f.sent-f.scheduled) / 1e6
	m.FirstSendSkewMs = &skew
}
