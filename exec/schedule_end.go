package exec

import (
	"sync/atomic"
	"time"
)

// A schedule says when its slots start, not when their work ends: a
// session of a million repeats, or a request with a long timeout due at
// the last instant, would run on long after the schedule's end (a 1 s
// plan was seen at "39s / 1s"). Nothing runs past the end plus the grace:
// then the run stops as on Ctrl-C, except that the grace is already
// spent, so what is still in flight is cut off at once. Requests never
// sent are recorded as not_sent and those cut off as interrupted, as
// after any stop, and the outcome says the run overran. A request due at
// the last instant may take its whole timeout: when the longest target
// timeout is longer than the grace, the watch waits that long instead.

// overrunAfter is how long after the schedule's end work may go on.
func (ex *executor) overrunAfter() time.Duration {
	d := ex.grace
	for _, t := range ex.s.Targets {
		d = max(d, t.Timeout)
	}
	return d
}

// overrunWatch fires at the schedule's end plus the grace.
type overrunWatch struct {
	timer   *time.Timer
	overran atomic.Bool
}

// watchScheduleEnd starts the watch; stop it once the run has finished.
func (ex *executor) watchScheduleEnd() *overrunWatch {
	w := &overrunWatch{}
	last := ex.s.Duration
	for _, u := range ex.s.Users { // the closed model's users stop within it, but say so
		last = max(last, time.Duration(u.Stop))
	}
	end := ex.clock.base.Add(last + ex.overrunAfter())
	w.timer = time.AfterFunc(time.Until(end), func() {
		w.overran.Store(true)
		ex.stopOnce.Do(func() { close(ex.stopCh) })
		ex.abort()
	})
	return w
}

// stop ends the watch; overran says whether it had fired.
func (w *overrunWatch) stop() (overran bool) {
	w.timer.Stop()
	return w.overran.Load()
}
