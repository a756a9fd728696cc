package loop

import (
	"time"

	"github.com/tressi/tressi/compile"
)

// gaugeEvery is how often a busy loop stores its gauges (open
// connections, sessions, requests in flight) for exec.Gauges: the loop
// keeps them in plain ints, and a sampler reads them once a second, so
// storing them at every change would cost atomics per request for
// nothing.
const gaugeEvery = int64(100 * time.Millisecond)

// storeGauges stores the loop's gauges when gaugeEvery has passed since it
// last did, or when it is about to wait longer than that (nothing changes
// while it waits), or when force is set (the loop ends).
func (l *evloop) storeGauges(now, wait int64, force bool) {
	st := l.sink.Stats
	if st == nil || !force && now < l.gaugesDue && wait < gaugeEvery {
		return // warming up, before the loop's sink: no gauges yet
	}
	l.gaugesDue = now + gaugeEvery
	open, sessions := 0, l.liveSessions
	for _, t := range l.targets {
		open += t.open
	}
	if l.ws != nil {
		open += l.ws.open
		sessions += l.ws.active
	}
	if l.ex.S.Model == compile.Closed {
		sessions = l.closedUsers.running(now)
	}
	st.Open.Store(int64(open))
	st.Sessions.Store(int64(sessions))
	st.InFlight.Store(int64(l.busy))
}

// running is how many of the loop's users have started and not finished.
func (d *closedDriver) running(now int64) int {
	started := 0
	for i := range d.users {
		if d.users[i].Start <= now {
			started++
		}
	}
	return max(started-(len(d.users)-d.active), 0)
}
