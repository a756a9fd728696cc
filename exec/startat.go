package exec

import (
	"fmt"
	"time"
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
