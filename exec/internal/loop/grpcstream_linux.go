package loop

import (
	"errors"
	"math"

	"golang.org/x/net/http2"

	"github.com/tressi/tressi/compile"

	"github.com/tressi/tressi/exec/internal/run"
	"github.com/tressi/tressi/grpc"
	"github.com/tressi/tressi/h2"
	"github.com/tressi/tressi/plan"
	"github.com/tressi/tressi/results"
)

// A session's gRPC streaming call: the open step's job rides an HTTP/2
// stream that stays open (client and bidirectional streams send their
// messages later, as DATA on it); each reply the server sends is handed
// to the session as a whole message, to settle the step awaiting it;
// the trailers end the call with its code. A session has one call open at
// a time (the plan sees to it), kept in lsession.call.

// lcall is a session's streaming call.
type lcall struct {
	c    *lconn // the connection carrying the stream, while it is live
	idx  int32  // the stream's job in c.mux.jobs
	live bool
	// ended: the server ended the call (code), or it failed (err), or the
	// session cancelled it.
	ended bool
	code  uint16
	err   error
	// halfClosed: the request's END_STREAM went out (a server stream's
	// with its one message).
	halfClosed bool
	// expires is when the call's deadline passes (MaxInt64: none).
	expires int64
	// What the session waits for: a reply to step st (waitReply) or the
	// call's end (waitEnd, a finish step), from sched (when the step was
	// ready) and sent, until deadline.
	wait     uint8
	st       *run.Step
	sched    int64
	sent     int64
	deadline int64
	out      int64
	want     [][]byte
	// held are replies that came while no step awaited one, oldest
	// first, for the next steps that await (at most maxHeld).
	held  [][]byte
	nheld int
	json  []byte // a reply's protojson, reused
	msg   []byte // a message being sent, reused
	// counts are the stream's, over the run (its open step's).
	counts *run.StreamCounts
}

// reuse is c emptied for the session's next call, its buffers kept.
func (c *lcall) reuse() lcall {
	return lcall{want: c.want, held: c.held, json: c.json, msg: c.msg}
}

const (
	waitNone = iota
	waitReply
	waitEnd
)

// maxHeld bounds the replies a session keeps for its later awaits: more
// than that, with nothing awaiting them, are counted and dropped.
const maxHeld = 64

// isCallOpen says j opens a session's streaming call.
func (j *ljob) isCallOpen() bool { return j.st != nil && j.st.Kind == plan.StepCallOpen }

// callBound makes stream idx of c, just started for the open step j, the
// session's call, and moves the session on (the open records no row).
func (l *evloop) callBound(c *lconn, idx int32, j *ljob) {
	hj := &c.mux.jobs[idx]
	hj.deadline = math.MaxInt64 // the steps' awaits have their own timeouts
	hj.stream = true
	s := &l.sessions[j.sess]
	s.call = s.call.reuse()
	s.call.c, s.call.idx, s.call.live, s.call.halfClosed = c, idx, true, !j.st.Call.ClientStreams
	s.call.counts = j.st.Call.Counts
	s.call.counts.Calls.Add(1)
	s.call.expires = math.MaxInt64
	if d := j.st.Call.Deadline; d > 0 {
		s.call.expires = c.mux.jobs[idx].sent + int64(d)
	}
	s.rep++
	s.ready = l.now + j.st.Think
	l.wakeSession(s.ready, j.sess)
}

// callOpenFailed records what the open step j's failure leaves: the call
// never began, so each of its steps records err when it comes.
func (l *evloop) callOpenFailed(j ljob, err error) {
	s := &l.sessions[j.sess]
	s.call = s.call.reuse()
	s.call.ended, s.call.err, s.call.counts = true, err, j.st.Call.Counts
	s.rep++
	s.ready = l.ex.Clock.Now() + j.st.Think
	s.answered = false
	l.wakeSession(s.ready, j.sess)
}

// replyHook is the function a stream's job hands each whole reply to.
func (m *h2mux) replyHook(idx int32) func([]byte, bool) {
	return func(p []byte, _ bool) { m.l.callReply(m, idx, p) }
}

// callReply offers reply p of the call on stream idx to its session.
func (l *evloop) callReply(m *h2mux, idx int32, p []byte) {
	id := m.jobs[idx].sess
	s := &l.sessions[id]
	s.call.counts.Received.Add(1)
	if s.call.wait == waitReply {
		if !l.callMatch(id, p, m.c.rxAt) {
			s.call.counts.Unmatched.Add(1)
		}
		return
	}
	if s.call.nheld >= maxHeld {
		s.call.counts.Unmatched.Add(1)
		return
	}
	if s.call.nheld == len(s.call.held) {
		s.call.held = append(s.call.held, nil)
	}
	s.call.held[s.call.nheld] = append(s.call.held[s.call.nheld][:0], p...)
	s.call.nheld++
}

// callMatch tries reply p, arrived at, on the step awaiting one; true
// when it answered it (the session has moved on).
func (l *evloop) callMatch(id int32, p []byte, at int64) bool {
	s := &l.sessions[id]
	st := s.call.st
	r := st.Call.DecodeReply(p, s.call.json)
	s.call.json = r.JSON
	if !st.MatchesReply(r, s.call.want, nil) {
		return false
	}
	done := max(at, s.call.sent)
	status := st.ReplyStatus(r)
	st.FillMessage(&s.cap, r.Raw, r.JSON, run.Succeeded(st.Req, int(status), true))
	row := run.WSRow(s.k, st.Req.Endpoint, s.call.sched, s.call.sent, done, status, results.None, s.call.out, int64(len(p)+grpc.PrefixLen))
	l.callKeep(st, row, p)
	s.call.wait = waitNone
	l.callStepDone(id, done, true)
	return true
}

// callEnded follows the end of a session's stream (the job on stream idx
// of m): the trailers' code, or err; a step waiting on it is settled.
func (l *evloop) callEnded(m *h2mux, idx int32, done int64, err error) {
	hj := &m.jobs[idx]
	id := hj.sess
	code := uint16(0)
	if err == nil {
		code = uint16(hj.call.End())
	}
	s := &l.sessions[id]
	var se *h2.StreamError
	if errors.As(err, &se) && se.Code == http2.ErrCodeCancel && done >= s.call.expires {
		// The server gave up at the deadline: grpc-go's client reports it so.
		code, err = uint16(grpc.DeadlineExceeded), nil
	}
	hj.stream = false
	m.release(idx)
	l.busy--
	l.streams--
	s.call.live, s.call.ended, s.call.code, s.call.err = false, true, code, err
	s.call.c = nil
	switch s.call.wait {
	case waitReply:
		l.callUnanswered(id, done)
	case waitEnd:
		l.callFinished(id, done)
	}
}

// callUnanswered records the step awaiting a reply that will not come now
// (the call ended, or the await timed out) and moves the session on.
func (l *evloop) callUnanswered(id int32, done int64) {
	s := &l.sessions[id]
	st := s.call.st
	s.call.wait = waitNone
	l.callFailRow(s, st, s.call.sched, s.call.sent, done, s.call.out)
	st.FillMessage(&s.cap, nil, nil, false)
	l.callStepDone(id, done, false)
}

// callFailRow records st's row for a call that cannot answer it: the
// call's failure, or stream_ended with the call's code, or await_timeout
// while it is still live.
func (l *evloop) callFailRow(s *lsession, st *run.Step, sched, sent, done, out int64) {
	c := &s.call
	switch {
	case c.err != nil:
		row := l.sink.Outcome(st.Req, s.k, sched, sent, done, out, 0, 0, c.err)
		l.callKeepErr(st, row, c.err)
	case c.ended:
		l.callKeep(st, run.WSRow(s.k, st.Req.Endpoint, sched, sent, done, c.code, results.StreamEnded, out, 0), nil)
	default:
		l.callKeep(st, run.WSRow(s.k, st.Req.Endpoint, sched, sent, done, uint16(grpc.DeadlineExceeded), results.AwaitTimeout, out, 0), nil)
	}
}

// callFinished records the finish step's row: the call's code, from when
// the step was ready to the trailers.
func (l *evloop) callFinished(id int32, done int64) {
	s := &l.sessions[id]
	st := s.call.st
	s.call.wait = waitNone
	s.call.counts.Unmatched.Add(int64(s.call.nheld)) // replies no step awaited
	s.call.nheld = 0
	if s.call.err != nil {
		l.callFailRow(s, st, s.call.sched, s.call.sent, done, 0)
		l.callStepDone(id, done, false)
		return
	}
	l.callKeep(st, run.WSRow(s.k, st.Req.Endpoint, s.call.sched, s.call.sent, done, s.call.code, results.None, s.call.out, 0), nil)
	l.callStepDone(id, done, true)
}

// callStepDone moves the session past a repeat of its current stream
// step, settled at done: the next one is due a think time later.
func (l *evloop) callStepDone(id int32, done int64, answered bool) {
	s := &l.sessions[id]
	st := &s.sc.Steps[s.step]
	s.rep++
	s.ready = done + st.Think
	s.answered = answered
	l.wakeSession(s.ready, id)
}

// callStep runs repeat s.rep of stream step st (not the open: its job is
// dispatched as any request); false when the session now waits.
func (l *evloop) callStep(id int32, st *run.Step) bool {
	s := &l.sessions[id]
	c := &s.call
	now := l.ex.Clock.Now()
	l.now = now
	switch st.Kind {
	case plan.StepCallHalfClose:
		if c.live && !c.halfClosed {
			c.c.mux.conn.HalfClose(c.c.mux.jobs[c.idx].s)
			l.muxLater(c.c)
		}
		c.halfClosed = true
		s.rep++
		s.ready = now + st.Think
		return true
	case plan.StepCallCancel:
		code := c.code
		if c.live {
			l.callCancel(s)
			code = uint16(grpc.Canceled)
		}
		if c.err != nil {
			l.callFailRow(s, st, s.ready, now, now, 0)
		} else {
			l.callKeep(st, run.WSRow(s.k, st.Req.Endpoint, s.ready, now, now, code, results.None, 0, 0), nil)
		}
		l.callStepDone(id, now, c.err == nil)
		return false
	case plan.StepCallFinish:
		c.st, c.sched, c.sent, c.out = st, s.ready, now, 0
		if !c.live {
			c.wait = waitEnd
			l.callFinished(id, now)
			return false
		}
		if !c.halfClosed {
			c.c.mux.conn.HalfClose(c.c.mux.jobs[c.idx].s)
			l.muxLater(c.c)
			c.halfClosed, c.out = true, 9
		}
		c.wait = waitEnd
		c.deadline = now + int64(st.Req.Timeout)
		l.armConn(c.c, c.deadline)
		return false
	}
	// A send (message, maybe awaited) or a receive (an await alone).
	c.st, c.sched, c.sent, c.out = st, s.ready, -1, 0
	if st.Kind == plan.StepCallSend {
		if !c.live {
			l.callFailRow(s, st, s.ready, -1, now, 0)
			l.callStepDone(id, now, false)
			return false
		}
		c.msg = run.AppendCallMessage(c.msg[:0], st.Req, l.callValues(s))
		c.c.mux.conn.Send(c.c.mux.jobs[c.idx].s, c.msg)
		l.muxLater(c.c)
		c.sent, c.out = now, int64(len(c.msg))
		c.counts.Sent.Add(1)
		if st.Await == nil {
			l.callKeep(st, run.WSRow(s.k, st.Req.Endpoint, s.ready, now, now, 0, results.None, c.out, 0), nil)
			l.callStepDone(id, now, true)
			return false
		}
	}
	c.want = st.Want(c.want, l.callValues(s))
	c.wait = waitReply
	c.deadline = now + st.Await.Timeout
	if c.live {
		l.armConn(c.c, c.deadline)
	}
	if c.sent < 0 {
		c.sent = now
	}
	for c.nheld > 0 {
		// The replies that came before this step: oldest first; those it
		// passes over are no step's.
		p := c.held[0]
		copy(c.held, c.held[1:c.nheld])
		c.held[c.nheld-1] = p
		c.nheld--
		if l.callMatch(id, p, now) {
			return false
		}
		c.counts.Unmatched.Add(1)
	}
	if !c.live {
		l.callUnanswered(id, now)
	}
	return false
}

// callValues are what a stream step's message and await values are
// rendered from: its slot, data row and captures.
func (l *evloop) callValues(s *lsession) *compile.Values {
	v := &l.enc.vals
	v.Slot, v.Row, v.Captured = s.k, l.ex.S.Row(int(s.entry), s.k), s.cap.Values
	return v
}

// callCancel gives up the session's live call: RST_STREAM(CANCEL) goes
// out, and the stream's job is released (the Conn says nothing more).
func (l *evloop) callCancel(s *lsession) {
	c := &s.call
	m := c.c.mux
	hj := &m.jobs[c.idx]
	m.conn.Cancel(hj.s)
	l.muxLater(c.c)
	hj.stream = false
	m.release(c.idx)
	l.busy--
	l.streams--
	c.live, c.ended, c.code, c.c = false, true, uint16(grpc.Canceled), nil
}

// callTimeout times out the session's wait on the stream of job hj: an
// await past its timeout is await_timeout, a finish past the target's
// timeout cancels the call. It returns when the wait times out
// (math.MaxInt64: the session waits for nothing), for c's timer.
func (l *evloop) callTimeout(hj *h2job, now int64) int64 {
	s := &l.sessions[hj.sess]
	c := &s.call
	if c.wait == waitNone {
		return math.MaxInt64
	}
	if now < c.deadline {
		return c.deadline
	}
	if c.wait == waitReply {
		l.callUnanswered(hj.sess, now)
		return math.MaxInt64
	}
	st := c.st
	c.wait = waitNone
	l.callCancel(s)
	l.callKeep(st, run.WSRow(s.k, st.Req.Endpoint, c.sched, c.sent, now, uint16(grpc.DeadlineExceeded), results.Timeout, c.out, 0), nil)
	l.callStepDone(hj.sess, now, false)
	return math.MaxInt64
}

// callEnd cancels the session's call if it is still live as the session
// ends (a plan without a finish or cancel step): no row.
func (l *evloop) callEnd(s *lsession) {
	if s.call.live {
		l.callCancel(s)
	}
	if s.call.counts != nil {
		s.call.counts.Unmatched.Add(int64(s.call.nheld))
	}
	s.call = s.call.reuse()
}

// callKeep records a stream step's row; reply (nil: none) is what
// answered it, for its sample.
func (l *evloop) callKeep(st *run.Step, row results.Row, reply []byte) {
	if row.Sent >= 0 {
		l.sink.Stats.Sent.Add(1)
	}
	l.sink.Stats.Done.Add(1)
	if !run.Succeeded(st.Req, int(row.Status), row.Error == results.None) {
		l.sink.Stats.Failed.Add(1)
	}
	if l.sink.WantSample(&row) {
		l.sink.PutSample(&row, st.Req, nil, reply[:min(len(reply), l.ex.MaxSample)], int64(len(reply)))
	}
	l.sink.Keep(row, l.now)
}

// callKeepErr records a row Outcome built (it counted it already).
func (l *evloop) callKeepErr(st *run.Step, row results.Row, err error) {
	if l.sink.WantSample(&row) {
		l.sink.PutSampleErr(&row, st.Req, nil, nil, 0, err)
	}
	l.sink.Keep(row, l.now)
}
