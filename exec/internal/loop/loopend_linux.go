package loop

import (
	"io"
	"syscall"

	"github.com/tressi/tressi/exec/internal/run"
	"github.com/tressi/tressi/exec/internal/sys"
	"github.com/tressi/tressi/results"
)

// How a connection's job ends: the peer's close, a response, a failure,
// and the connection's next job.

// eof handles the peer's close of a busy connection.
func (l *evloop) eof(c *lconn) {
	if c.mux != nil {
		l.failMux(c, nil)
		return
	}
	if c.state != connBusy {
		l.fail(c, io.ErrUnexpectedEOF)
		return
	}
	done, err := c.h1.eof()
	if err != nil {
		l.fail(c, err)
		return
	}
	if done {
		l.complete(c, l.ex.Clock.Now()) // the close itself carries no stamp
	}
}

// complete records c's response, finished at done, and frees c for the
// next job.
func (l *evloop) complete(c *lconn, done int64) {
	l.whole(c)
	j := c.job
	resp := c.h1.response()
	// Bytes beyond the response (we never pipeline) mean the server and the
	// framing disagree, and a server that answered before reading the
	// whole request (a 413, say) has the rest of it still coming: either
	// way the connection cannot be trusted with another request.
	keepConn := resp.keepAlive && c.rlen == 0 && c.pending == nil
	if l.answerChallenge(c, &j, resp, keepConn) {
		return // the job goes out again with its digest answer
	}
	sent, out, in, connect := j.totals(c.sent, c.out, c.in, c.connect)
	if l.redirect(&j, resp, sent, out, in, connect) {
		l.followH1(c, j, keepConn)
		return
	}
	l.recordAnswer(&j, sent, done, out, in, connect, resp) // before c takes another job
	c.connect = 0
	c.served = true
	l.busy--
	l.releaseAnswered(c, keepConn)
	l.jobDone(&j, done, true)
}

// releaseAnswered hands c, whose answer was read, to what comes next: its
// session, its target's next job or its idle list, or closes it.
func (l *evloop) releaseAnswered(c *lconn, keepConn bool) {
	switch {
	case !keepConn || l.ex.Aborted.Load():
		l.closeConn(c)
		l.refill(c.t)
	case c.owner >= 0:
		c.state = connIdle // the session's, until its next request or its end
	default:
		l.reuse(c)
	}
}

// jobDone hands what follows a finished job to its driver.
func (l *evloop) jobDone(j *ljob, done int64, answered bool) {
	switch {
	case j.st != nil:
		l.sessionDone(j, done, answered)
	case j.user >= 0:
		l.userDone(j.user, done, answered)
	}
}

// reuse hands the idle connection c to the next queued job of its target,
// or parks it.
func (l *evloop) reuse(c *lconn) {
	c.state = connIdle
	t := c.t
	if t.queue.Len() > 0 {
		j := l.dequeue(t)
		if j.own {
			// A session waiting for a connection of its own: c's place
			// in the cap becomes its.
			l.closeConn(c)
			l.dial(t, j)
			return
		}
		l.begin(c, j)
		return
	}
	t.idle = append(t.idle, c)
}

// fail records c's job as failed with err and closes c.
//
// One failure is not the job's: a connection that sat idle, which the
// server closed (a keep-alive timeout) as the request went out. When the
// connection ended before any byte of a response came back, the server
// never read the request (it closed an idle connection), and the job goes
// out once more, on a fresh connection, recorded once. Any other failure,
// or the same one again, is the job's row.
func (l *evloop) fail(c *lconn, err error) {
	if c.mux != nil {
		l.failMux(c, err)
		return
	}
	j, read := c.job, c.in
	sent, out, in, connect := c.sent, c.out, c.in, c.connect
	c.connect = 0
	if j.pr == nil {
		// A warm-up dial that failed: nobody's request. The first
		// request that needs the connection dials again, and records
		// what happens then.
		l.busy--
		l.closeConn(c)
		l.refill(c.t)
		return
	}
	dialing := c.state == connDialing || c.state == connHandshaking
	retry := c.reused && c.state == connBusy && read == 0 && !j.retry && run.ClosedByPeer(err) && !l.ex.Aborted.Load()
	l.busy--
	l.closeConn(c)
	if retry {
		j.retry = true
		j.ready = l.ex.Clock.Now()
		l.dial(c.t, j)
		return
	}
	if _, isTimeout := err.(timeoutError); dialing && !isTimeout {
		if _, ok := err.(*run.DialError); !ok {
			err = &run.DialError{Err: err}
		}
	}
	l.finishJob(j, sent, out, in, connect, err)
}

// recordAnswer records j's response, finished at done: its row (with the
// connect time of the connection it opened, 0 otherwise), its sample when
// it is the first of its kind, and its session step's captures.
func (l *evloop) recordAnswer(j *ljob, sent, done, out, in, connect int64, resp *lresponse) {
	stop := j.redirectStop()
	var row results.Row
	if stop != nil {
		row = l.sink.RedirectStopped(j.pr, j.k, j.sched, sent, done, out, in, resp.status, stop)
	} else {
		row = l.sink.Outcome(j.pr, j.k, j.sched, sent, done, out, in, resp.status, nil)
	}
	row.Connect = connect
	switch {
	case resp.check != nil && l.sink.Checked(&row, j.pr, resp.check):
		if l.sink.WantSample(&row) {
			head, body := resp.Head, resp.Body
			if !resp.sampled {
				head, body = nil, nil // kept for a capture, maybe, not as a sample
			}
			l.sink.PutCheckSample(&row, j.pr, head, body, resp.bodyLen, resp.check.Detail())
		}
	case resp.sampled && l.sink.WantSample(&row):
		l.sink.PutSampleErr(&row, j.pr, resp.Head, resp.Body, resp.bodyLen, stop)
	}
	l.sink.Keep(row, done)
	l.keepCookies(j, resp)
	if j.st != nil {
		l.sessionCapture(j, resp)
	}
	l.endChain(j)
}

// finishJob records a job that ended without a response; connect is the
// connect time of the connection it opened (0: none), which a failed row
// keeps as an answered one does. The figures are its last exchange's: a
// digest round's or a redirect's earlier ones are added here.
func (l *evloop) finishJob(j ljob, sent, out, in, connect int64, err error) {
	if j.isCallOpen() {
		// A stream that never opened records no row of its own: its
		// steps record err as they come.
		l.refill(l.targets[j.pr.Spec.Target])
		l.callOpenFailed(j, err)
		return
	}
	sent, out, in, connect = j.totals(sent, out, in, connect)
	done := l.ex.Clock.Now()
	row := l.sink.Outcome(j.pr, j.k, j.sched, sent, done, out, in, 0, err)
	row.Connect = connect
	if l.sink.WantSample(&row) {
		l.sink.PutSampleErr(&row, j.pr, nil, nil, 0, err)
	}
	l.sink.Keep(row, done)
	l.refill(l.targets[j.target()])
	l.endChain(&j)
	l.jobDone(&j, done, false)
}

// refill dials for queued jobs while a closed connection left room. Dials
// that fail at once come back here: the flag keeps that a loop, not a
// recursion.
func (l *evloop) refill(t *ltarget) {
	if l.refilling {
		return
	}
	l.refilling = true
	for t.queue.Len() > 0 && t.open < t.maxConns && !l.ex.Aborted.Load() {
		l.dial(t, l.dequeue(t))
	}
	l.refilling = false
}

// closeConn closes c; a connection that was idle leaves its target's idle
// list.
func (l *evloop) closeConn(c *lconn) {
	if c.fd < 0 {
		return
	}
	t := c.t
	if c.mux != nil {
		if c.mux.conn.Active() > 0 {
			c.mux.conn.Fail(run.ErrAborted) // only at the very end: every stream ended before
		}
		l.muxes--
	}
	if c.owner >= 0 {
		l.sessions[c.owner].conns[t.idx] = nil
		c.owner = -1
	} else if c.mux != nil {
		t.dropMux(c)
	} else if c.state == connIdle {
		for i, x := range t.idle {
			if x == c {
				t.idle = append(t.idle[:i], t.idle[i+1:]...)
				break
			}
		}
	}
	t.open--
	l.releaseConn(c)
}

// whole marks c as no longer holding part of a response.
func (l *evloop) whole(c *lconn) {
	if c.partial {
		c.partial = false
		l.partials--
	}
}

func (l *evloop) releaseConn(c *lconn) {
	l.whole(c)
	if c.state == connHandshaking {
		l.handshaking--
	}
	if c.tr != nil {
		c.tr.Close()
		c.tr = nil
	}
	if c.ring {
		l.p.Detach(c.id)
		c.ring = false
	}
	sys.CloseFD(c.fd) // also leaves the epoll set
	if c.wantOut {
		c.wantOut = false
		l.outs--
	}
	c.fd = -1
	c.state = connIdle
	c.pending = nil
	l.closed = append(l.closed, c.id)
}

// setOut switches EPOLLOUT interest on or off. The set refusing a change
// for a socket it holds is a broken connection: it fails.
func (l *evloop) setOut(c *lconn, out bool) {
	if out == c.wantOut || c.ring {
		return
	}
	if err := l.p.Modify(c.fd, c.id, out); err != nil {
		l.fail(c, err)
		return
	}
	if out {
		l.outs++
	} else {
		l.outs--
	}
	c.wantOut = out
}

// recv reads from c into b and sets c.rxAt: the kernel's receive stamp of
// the last bytes read when the loop keeps stamps, else the clock now.
func (l *evloop) recv(c *lconn, b []byte) (int, syscall.Errno) {
	n, at, errno := l.rx.Read(c.fd, b)
	if errno != 0 || n == 0 {
		return n, errno
	}
	c.rxAt = l.ex.Clock.Now()
	if at >= 0 && at < c.rxAt && (c.sent < 0 || at >= c.sent) {
		c.rxAt = at
	}
	return n, 0
}
