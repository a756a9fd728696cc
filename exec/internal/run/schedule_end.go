package run

import (
	"fmt"
	"sync/atomic"
	"time"

	"github.com/tressi/tressi/compile"
)

// A schedule says when its slots start, not when their work ends: a
// session of a million repeats kept sending long after the schedule's end
// (a 1 s plan was seen at "39s / 1s"). From the schedule's end plus the
// grace on (and the longest its sessions hold, think and pause by design:
// a 20 s ramp of sessions that each hold 60 s is not overrunning), sessions
// send nothing more: each records what it has left as
// not_sent (one row per request, as after any stop) and ends, and the
// outcome says the run overran. The watch waits the longest target
// timeout when that is longer than the grace, so a request sent at the
// schedule's end can still be answered; but what is still in flight when
// the watch fires is cut there, as after an interrupt's grace: its
// connection closes and its row is interrupted. A request sent just
// before the bound once got its whole timeout more (a 1 s plan with a 5 s
// timeout ran 10.6 s against its 6 s bound). Slots due within the schedule
// but sent late by a busy generator are still sent, late, with their
// lateness recorded, while the bound allows: that is the schedule, not
// work past it.

// overrunAfter is how long after the schedule's end sessions may go on.
func (ex *Executor) overrunAfter() time.Duration {
	d := ex.Grace
	for _, t := range ex.S.Targets {
		d = max(d, t.Timeout)
	}
	return d
}

// overrunWatch marks the schedule's end plus overrunAfter.
type overrunWatch struct {
	timer   *time.Timer
	pastEnd atomic.Bool  // the end plus the grace has come
	reached atomic.Bool  // it came before the run finished: what was left was cut there
	Cut     atomic.Int64 // sessions cut short by it
}

// WatchScheduleEnd starts the watch; stop it once the run has finished.
func (ex *Executor) WatchScheduleEnd() *overrunWatch {
	w := &overrunWatch{}
	last := ex.S.Duration
	for _, u := range ex.S.Users { // the closed model's users stop within it, but say so
		last = max(last, time.Duration(u.Stop))
	}
	// A session started at the end may still hold, think and pause as
	// its plan says: that is not overrunning.
	last += ex.S.LongestPauses()
	end := ex.Clock.Base.Add(last + ex.overrunAfter())
	w.timer = time.AfterFunc(time.Until(end), func() {
		w.pastEnd.Store(true)
		w.reached.Store(true)
		ex.cutAtBound()
	})
	ex.Overrun = w
	return w
}

// cutAtBound ends what the run still has at its bound: nothing starts any
// more (what is left is not_sent) and what is in flight is interrupted at
// once, the grace being part of the bound already.
func (ex *Executor) cutAtBound() {
	ex.stopOnce.Do(func() { close(ex.StopCh) })
	ex.abort()
}

// PastEnd says whether sessions must stop sending.
func (ex *Executor) PastEnd() bool { return ex.Overrun != nil && ex.Overrun.pastEnd.Load() }

// Stop ends the watch; overran says whether the run reached the bound
// (or a session was cut short by it).
func (w *overrunWatch) Stop() (overran bool) {
	w.timer.Stop()
	return w.reached.Load() || w.Cut.Load() > 0
}

// ScheduleEnd is how reading the open model's slots from src ended, after
// read of them, done when src had no more: nil when every slot was read,
// else why the schedule ended early. Every engine reports it so.
func ScheduleEnd(s *compile.Schedule, src compile.SlotSource, read uint64, done bool) error {
	if err := compile.StreamErr(src); err != nil {
		return err
	}
	if done && read != uint64(s.Count) {
		return fmt.Errorf("the schedule ended after %d of its %d slots", read, s.Count)
	}
	return nil
}
