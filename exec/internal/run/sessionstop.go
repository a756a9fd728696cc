package run

// Halt is whether the run stopped sending (an interrupt, an early exit,
// its bound) and whether it passed its schedule's end plus the grace, as
// of one look (Executor.Look): a WebSocket loop looks once per wake-up,
// not once per frame (the first is a channel, the second an atomic).
type Halt struct{ Stopping, PastEnd bool }

// Look is the run's halt state now.
func (ex *Executor) Look() Halt { return Halt{ex.Stopping(), ex.PastEnd()} }

// StopsSession is the one stop rule for a session's next step, in every
// engine and for both kinds of session (HTTP scenarios, WebSocket): now is
// when the step would go out, deadline the session's (a closed-model
// user's stop plus the grace; math.MaxInt64 in the open model). cut: the
// step is not sent, and the caller records it and the rest of the session
// as not_sent (a request sent is always recorded; one not sent by the end
// is not_sent). overrun: the schedule's end cut it, and the caller counts
// the session in Overrun.Cut, once. A session waiting (think, hold) for an
// instant past its deadline wakes at the deadline to be cut then: its
// user is still busy with it until that instant.
func (h Halt) StopsSession(now, deadline int64) (cut, overrun bool) {
	switch {
	case h.Stopping:
		return true, false
	case h.PastEnd:
		return true, true
	}
	return now >= deadline, false
}

// CutSession applies StopsSession to a session's next step, as of h, and
// counts a cut by the schedule's end in Overrun.Cut once per session: cut
// is the session's own flag, set once it was cut. true: the step is not
// sent, and the caller records it and the rest as not_sent.
func (ex *Executor) CutSession(h Halt, now, deadline int64, cut *bool) bool {
	stops, overrun := h.StopsSession(now, deadline)
	if !stops {
		return false
	}
	if overrun && !*cut {
		ex.Overrun.Cut.Add(1) // see schedule_end.go
	}
	*cut = true
	return true
}
