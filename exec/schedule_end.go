package exec

import (
	"sync/atomic"
	"time"
)

// A schedule says when its slots start, not when their work ends: a
// session of a million repeats kept sending long after the schedule's end
// (a 1 s plan was seen at "39s / 1s"). From the schedule's end plus the
// grace on (and the longest its sessions hold, think and pause by design:
// a 20 s ramp of sessions that each hold 60 s is not overrunning), sessions
// send nothing more: each records what it has left as
// not_sent (one row per request, as after any stop) and ends, and the
// outcome says the run overran. A request already in flight ends within
// its own timeout, so the watch waits that long when the timeout is the
// longer. Slots due within the schedule but sent late by a busy generator
// are still sent, late, with their lateness recorded: that is the
// schedule, not work past it.

// overrunAfter is how long after the schedule's end sessions may go on.
func (ex *executor) overrunAfter() time.Duration {
	d := ex.grace
	for _, t := range ex.s.Targets {
		d = max(d, t.Timeout)
	}
	return d
}

// overrunWatch marks the schedule's end plus overrunAfter.
type overrunWatch struct {
	timer   *time.Timer
	pastEnd atomic.Bool  // the end plus the grace has come
	cut     atomic.Int64 // sessions cut short by it
}

// watchScheduleEnd starts the watch; stop it once the run has finished.
func (ex *executor) watchScheduleEnd() *overrunWatch {
	w := &overrunWatch{}
	last := ex.s.Duration
	for _, u := range ex.s.Users { // the closed model's users stop within it, but say so
		last = max(last, time.Duration(u.Stop))
	}
	// A session started at the end may still hold, think and pause as
	// its plan says: that is not overrunning.
	last += ex.s.LongestPauses()
	end := ex.clock.base.Add(last + ex.overrunAfter())
	w.timer = time.AfterFunc(time.Until(end), func() { w.pastEnd.Store(true) })
	ex.overrun = w
	return w
}

// pastEnd says whether sessions must stop sending.
func (ex *executor) pastEnd() bool { return ex.overrun != nil && ex.overrun.pastEnd.Load() }

// stop ends the watch; overran says whether it cut a session short.
func (w *overrunWatch) stop() (overran bool) {
	w.timer.Stop()
	return w.cut.Load() > 0
}
