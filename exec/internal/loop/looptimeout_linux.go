package loop

import (
	"time"

	"github.com/tressi/tressi/exec/internal/run"
)

// timeoutError is a request or dial that outlived its timeout.
type timeoutError struct{}

func (timeoutError) Error() string { return "timeout" }
func (timeoutError) Timeout() bool { return true }

// armScan makes sure the timeout scan runs within scanEvery.
func (l *evloop) armScan() {
	if l.busy+l.queued == 1 {
		l.nextScan = l.now + scanEvery
	}
}

// scan fails what outlived its timeout: dials, requests in flight, and
// jobs that waited too long for a connection.
func (l *evloop) scan() {
	now := l.now
	// Every millisecond plus a µs per connection: thousands of connections
	// are not walked a thousand times a second.
	l.nextScan = now + scanEvery + int64(len(l.conns))*int64(time.Microsecond)
	for _, c := range l.conns {
		if c.fd < 0 || c.state == connIdle {
			continue
		}
		if c.mux != nil {
			l.muxScan(c, now)
			continue
		}
		switch {
		case (c.state == connDialing || c.state == connHandshaking) && now >= c.dialEnd:
			l.fail(c, &run.DialError{Err: timeoutError{}})
		case now >= c.deadline:
			l.fail(c, timeoutError{})
		}
	}
	for _, t := range l.targets {
		for t.queue.Len() > 0 {
			if j := t.queue.Peek(); now < j.ready+int64(j.pr.Timeout) {
				break
			}
			j := t.queue.Pop()
			l.queued--
			l.finishJob(j, -1, 0, 0, 0, timeoutError{})
		}
	}
}

// dropQueued records the jobs still waiting for a connection as not sent:
// after a stop nothing new starts.
func (l *evloop) dropQueued() {
	for _, t := range l.targets {
		for t.queue.Len() > 0 {
			j := t.queue.Pop()
			l.queued--
			switch {
			case j.ws:
				l.ws.httpDropped(&j)
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
