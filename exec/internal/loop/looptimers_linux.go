package loop

import "github.com/tressi/tressi/exec/internal/drive"

// The loop's timer heap: everything that waits for an instant, in one
// order. Closed-model users (think time, max_rate), HTTP sessions' next
// steps, connections' dial and request deadlines, the first job and the
// first WebSocket session of each target's queues (one entry, the earlier
// of the two), and WebSocket sessions' timers are entries of one heap,
// fired in the loop's bursts (drive.BurstClock, one quantum apart at
// most), in both models.
//
// Nothing is taken off the heap early: an entry whose owner moved on is
// stale, and is dropped when it comes up. A connection, a target and a
// WebSocket session keep at most one live entry, its instant in their
// timerAt: a later deadline leaves the earlier entry in place, and when
// it fires the owner arms its next one. So a connection carrying one
// request after another pushes an entry about once per timeout, not once
// per request.

// timer is what an entry of the heap stands for.
type timer struct {
	kind uint8
	id   int32  // by kind: a user, a session, a connection, a target, a WebSocket session
	k    uint64 // a WebSocket session's slot: an entry naming another is stale
}

const (
	timerUser    = iota // a closed-model user's next request
	timerSession        // an HTTP session's next step
	timerConn           // a connection's connect or request deadline
	timerQueue          // the deadline of the job or WebSocket session first in a target's queues
	timerWS             // a WebSocket session's timer (wstimers_linux.go)
)

type timerHeap = drive.TimerHeap[timer]

// wakeUser puts closed-model user u's next request at at.
func (l *evloop) wakeUser(at int64, u int32) { l.wakeAt(at, timer{kind: timerUser, id: u}) }

// wakeSession puts HTTP session id's next step at at, or at the session's
// deadline when that comes first: it is cut then (run.Halt.StopsSession).
func (l *evloop) wakeSession(at int64, id int32) {
	l.wakeAt(min(at, l.sessions[id].deadline), timer{kind: timerSession, id: id})
}

// wakeAt pushes a user's or session's entry: once the run stops, they act
// at once (see hasten).
func (l *evloop) wakeAt(at int64, t timer) {
	if l.hastened {
		at = min(at, l.now)
	}
	l.timers.Push(at, t)
}

// armConn makes sure c's timer fires by at.
func (l *evloop) armConn(c *lconn, at int64) {
	if c.timerAt >= 0 && c.timerAt <= at {
		return // an earlier entry is pending: it arms the next when it fires
	}
	c.timerAt = at
	l.timers.Push(at, timer{kind: timerConn, id: c.id})
}

// armQueue makes sure t's queues are looked at by at.
func (l *evloop) armQueue(t *ltarget, at int64) {
	if t.timerAt >= 0 && t.timerAt <= at {
		return
	}
	t.timerAt = at
	l.timers.Push(at, timer{kind: timerQueue, id: int32(t.idx)})
}

// nextWake is the instant of the heap's next entry, -1 without one.
func (l *evloop) nextWake() int64 {
	if l.timers.Len() == 0 {
		return -1
	}
	return l.timers.Top()
}

// fireTimers acts on every entry that is due: it takes them off the heap
// first, touching the WebSocket sessions among them together (see
// wsSession.touch), then handles them in order; until none is due, since
// handling one may push another for now. Once the run stops, users and
// sessions act at once (they record what is left as not sent), while
// deadlines and WebSocket timers keep their instants.
func (l *evloop) fireTimers() {
	l.now = l.ex.Clock.Now()
	if !l.hastened && l.ex.Stopping() {
		l.hastened = true
		l.timers.Hasten(l.now, func(t timer) bool { return t.kind == timerUser || t.kind == timerSession })
	}
	if l.ws != nil {
		l.ws.now = l.now
	}
	for l.timers.Len() > 0 && l.timers.Top() <= l.now {
		due := l.due[:0]
		for l.timers.Len() > 0 && l.timers.Top() <= l.now {
			at, t := l.timers.Pop()
			if t.kind == timerWS {
				l.ws.touched += l.ws.sess[t.id].touch()
			}
			due = append(due, drive.Timed[timer]{At: at, V: t})
		}
		l.due = due
		for _, d := range due {
			l.fire(d.At, d.V)
		}
	}
}

// fire hands one due entry to its owner.
func (l *evloop) fire(at int64, t timer) {
	switch t.kind {
	case timerUser:
		l.userNext(t.id)
	case timerSession:
		l.sessionNext(t.id)
	case timerConn:
		if c := l.conns[t.id]; c.timerAt == at {
			c.timerAt = -1
			l.connTimeout(c)
		}
	case timerQueue:
		if q := l.targets[t.id]; q.timerAt == at {
			q.timerAt = -1
			l.queueTimeout(q)
			if l.ws != nil {
				l.ws.expireQueued(q, false)
			}
		}
	case timerWS:
		l.ws.fired(at, t)
	}
}
