package loop

import (
	"math"

	"github.com/tressi/tressi/exec/internal/run"
)

// timeoutError is a request or dial that outlived its timeout.
type timeoutError struct{}

func (timeoutError) Error() string { return "timeout" }
func (timeoutError) Timeout() bool { return true }

// connTimeout follows c's timer: a dial past its connect timeout, a
// request (or, over HTTP/2, its streams) past its timeout fails; else c's
// timer is armed for its next deadline.
func (l *evloop) connTimeout(c *lconn) {
	if c.fd < 0 || c.state == connIdle {
		return
	}
	now := l.now
	if c.mux != nil {
		if next := l.muxTimeout(c, now); next < math.MaxInt64 && c.fd >= 0 {
			l.armConn(c, next)
		}
		return
	}
	dialing := c.state == connDialing || c.state == connHandshaking
	switch {
	case dialing && now >= c.dialEnd:
		l.fail(c, &run.DialError{Err: timeoutError{}})
	case now >= c.deadline:
		l.fail(c, timeoutError{})
	case dialing:
		l.armConn(c, min(c.dialEnd, c.deadline))
	default:
		l.armConn(c, c.deadline)
	}
}

// jobDeadline is when j, waiting for a connection, times out.
func jobDeadline(j *ljob) int64 { return j.ready + int64(j.pr.Timeout) }

// enqueue puts j in t's queue until a connection frees.
func (l *evloop) enqueue(t *ltarget, j ljob) {
	t.queue.Push(j)
	l.queued++
	l.ex.ConnWaits.Add(1)
	if t.queue.Len() == 1 {
		l.armQueue(t, jobDeadline(&j))
	}
}

// dequeue takes the first job of t's queue, and arms the queue's timer for
// the next one's deadline.
func (l *evloop) dequeue(t *ltarget) ljob {
	j := t.queue.Pop()
	l.queued--
	if t.queue.Len() > 0 {
		l.armQueue(t, jobDeadline(t.queue.Peek()))
	}
	return j
}

// queueTimeout fails the jobs first in t's queue that waited past their
// timeout for a connection, and arms the queue's timer for the next.
func (l *evloop) queueTimeout(t *ltarget) {
	for t.queue.Len() > 0 {
		if d := jobDeadline(t.queue.Peek()); l.now < d {
			l.armQueue(t, d)
			return
		}
		j := t.queue.Pop()
		l.queued--
		l.finishJob(j, -1, 0, 0, 0, timeoutError{})
	}
}

// dropQueued records the jobs and WebSocket sessions still waiting for a
// connection as not sent: after a stop nothing new starts.
func (l *evloop) dropQueued() {
	for _, t := range l.targets {
		if l.ws != nil {
			l.ws.expireQueued(t, true)
		}
		for t.queue.Len() > 0 {
			j := t.queue.Pop()
			l.queued--
			switch {
			case j.st != nil:
				l.dropSessionJob(&j)
			case j.user >= 0:
				l.sink.NotSent(j.k, int(j.entry), j.sched)
				l.closedUsers.active--
			default:
				l.sink.NotSent(j.k, int(j.entry), j.sched)
			}
		}
	}
}

// abort cuts every connection: what is in flight is recorded as
// interrupted.
func (l *evloop) abort() {
	for _, c := range l.conns {
		if c.fd < 0 {
			continue
		}
		if c.state == connIdle {
			l.closeConn(c)
			continue
		}
		l.fail(c, run.ErrAborted)
	}
}
