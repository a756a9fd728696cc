package loop

import (
	"github.com/tressi/tressi/exec/internal/run"
	"github.com/tressi/tressi/results"
)

// A target's `connections` caps the WebSocket sessions connected to it at
// once, as it caps an HTTP target's connections: a session due while every
// connection is taken waits in its target's queue (first come, first
// served) and starts when a session ends. The wait counts toward its
// connect row's latency (measured from the due instant) and its connect
// step's timeout: a session still waiting at its due instant plus that
// timeout gets a `timeout` connect row, and the rest of its rows
// `ws_closed`, as a session whose upgrade was not answered in time. Like
// the HTTP loop, each loop holds its share of the cap.
//
// The queue is its target's second, beside the HTTP jobs' (jobQueue): the
// same FIFO, and the same timer, the target's one entry in the loop's
// heap (armQueue), set for the earlier of the two heads' deadlines. They
// stay two queues because they wait for different things: a job for a
// pooled connection, a session for a place under the cap that only a
// session's end frees, so neither may wait behind the other.

// wsQueued is a session waiting for a connection.
type wsQueued struct {
	k    uint64
	prog *run.Program
	due  int64
	user int32 // closed model: the user running it; -1 otherwise
}

// deadline is when a queued session's connect step times out.
func (q *wsQueued) deadline() int64 { return q.due + int64(q.prog.ConnectStep().Req.Timeout) }

// expiry is when a queued session leaves the queue unstarted: its connect
// step's timeout, or before it its closed-model user's stop plus the grace.
func (l *wsLoop) expiry(q *wsQueued) int64 { return min(q.deadline(), l.userDeadline(q.user)) }

// admit starts slot k's session now, or queues it behind the sessions that
// wait for a connection to its target.
func (l *wsLoop) admit(k uint64, p *run.Program, due int64, user int32) {
	t := l.targets[p.Target]
	if t.wsLive < t.maxConns && t.wsQueue.Len() == 0 {
		l.startSession(k, p, due, user)
		return
	}
	t.wsQueue.Push(wsQueued{k: k, prog: p, due: due, user: user})
	l.queued++
	if t.wsQueue.Len() == 1 {
		l.host.armQueue(t, l.expiry(t.wsQueue.Peek()))
	}
}

// refill starts queued sessions while t has room. Starts that fail at once
// end their session, which refills again: the flag keeps that a loop, not
// a recursion.
func (l *wsLoop) refill(t *ltarget) {
	if l.refilling {
		return
	}
	l.refilling = true
	for t.wsLive < t.maxConns && t.wsQueue.Len() > 0 {
		q := l.dequeue(t)
		switch {
		case l.ex.Stopping() || l.now >= l.userDeadline(q.user):
			// The run stopped, or the closed-model user's time is up.
			l.notSentSession(q.k, q.prog.Entry, q.due)
			l.userFree(q.user, l.now)
		case q.deadline() <= l.now:
			l.queueTimeout(q)
		default:
			l.startSession(q.k, q.prog, q.due, q.user)
		}
	}
	l.refilling = false
}

// dequeue takes the first session of t's queue, and arms the queue's
// timer for the next one's expiry.
func (l *wsLoop) dequeue(t *ltarget) wsQueued {
	l.queued--
	q := t.wsQueue.Pop()
	if t.wsQueue.Len() > 0 {
		l.host.armQueue(t, l.expiry(t.wsQueue.Peek()))
	}
	return q
}

// expireQueued follows t's queue timer (stopping: the run's stop): it
// records the sessions at the head of t's queue whose connect timeout
// passed while they waited, and as not sent those whose closed-model
// user's time is up and, once the run stops, every queued session; then
// arms the timer for the next. A session behind one with a longer timeout
// (another scenario's, on the same target) is recorded when it reaches the
// head: its row is the same, only written later.
func (l *wsLoop) expireQueued(t *ltarget, stopping bool) {
	for t.wsQueue.Len() > 0 {
		if at := l.expiry(t.wsQueue.Peek()); !stopping && l.now < at {
			l.host.armQueue(t, at)
			return
		}
		l.queued--
		q := t.wsQueue.Pop()
		if stopping || l.now >= l.userDeadline(q.user) {
			l.notSentSession(q.k, q.prog.Entry, q.due)
			l.userFree(q.user, l.now)
		} else {
			l.queueTimeout(q)
		}
	}
}

// queueTimeout records a session that waited for a connection past its
// connect step's timeout: its first row (the connect, or an HTTP step
// before it) is a timeout, the rest ws_closed.
func (l *wsLoop) queueTimeout(q wsQueued) {
	i := 0
	for !q.prog.Steps[i].Kind.Rows() { // the connect at the latest
		i++
	}
	st := &q.prog.Steps[i]
	s := &wsSession{k: q.k, prog: q.prog, fe: -1, ready: q.due}
	l.stats.sessionsStarted++
	l.stats.sessionsFailed++
	l.keep(s, run.WSRow(q.k, st.Ep, q.due, -1, -1, 0, results.Timeout, 0, 0), st)
	s.i, s.j = i, 1
	l.restRows(s, results.WSClosed)
	l.userFree(q.user, l.now)
}

// stopSending reports whether a session must send nothing more, by the
// rule every session follows (run.Halt.StopsSession). A session cut by the
// schedule's end counts in the outcome's overrun, once.
func (l *wsLoop) stopSending(s *wsSession) bool {
	return l.ex.CutSession(l.halt, l.now, s.deadline, &s.cut)
}

// cutAll wakes, once, every session that waits on a pause (think, hold)
// when sending must stop: each records what it has left as not sent and
// closes, instead of holding its connection to the end of the pause.
// Sessions waiting for an answer go on waiting: the answer, its timeout or
// the abort after the grace ends them. Sessions in their HTTP steps are
// the host's sessions until the connect: the host wakes those once the run
// stops (fireTimers).
func (l *wsLoop) cutAll() {
	if l.cutting || (!l.halt.Stopping && !l.halt.PastEnd) {
		return
	}
	l.cutting = true
	for _, s := range l.sess {
		if s.prog != nil && s.state == wsOpen && !s.blocked {
			l.step(s)
		}
	}
}
