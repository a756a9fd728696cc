package loop

import (
	"fmt"

	"github.com/tressi/tressi/exec/internal/record"
	"github.com/tressi/tressi/exec/internal/run"
	"github.com/tressi/tressi/exec/internal/sys"
	"github.com/tressi/tressi/plan"
	"github.com/tressi/tressi/results"
	"github.com/tressi/tressi/ws"
)

// How a WebSocket session ends: its close, a lost or refused connection,
// an exit_if_failed, a stop; each writes the rows the session still owes.

// exitSession ends a session whose await i failed on an exit_if_failed
// step, as Gatling's exitHereIfFailed does: the rows it would still have
// recorded are skipped (neither requests nor errors), answers still
// awaited are ws_closed, and the connection closes with 1000.
func (l *wsLoop) exitSession(s *wsSession, i int) {
	for j := range s.awaits {
		if a := &s.awaits[j]; j != i && a.st != nil && a.st.Kind != plan.StepClose {
			l.keep(s, run.WSRow(s.k, a.st.Ep, a.sched, a.sent, -1, 0, results.WSClosed, a.out, 0), a.st)
		}
	}
	s.awaits = s.awaits[:0]
	s.blocked, s.wakeAt = false, -1
	l.restRows(s, results.Skipped)
	l.finishProgram(s)
}

// finishProgram closes the session once its awaits are settled.
func (l *wsLoop) finishProgram(s *wsSession) {
	if len(s.awaits) > 0 && !l.ex.Aborted.Load() {
		s.i = len(s.prog.Steps)
		l.armTimer(s)
		return
	}
	if !s.closing {
		l.sendClose(s, ws.CloseNormal)
	}
	l.endSession(s)
}

// serverClosed handles the server's close frame.
func (l *wsLoop) serverClosed(s *wsSession) {
	code, reason := s.r.CloseCode()
	if s.closing {
		for i := range s.awaits {
			a := &s.awaits[i]
			if a.st.Kind == plan.StepClose {
				l.keep(s, run.WSRow(s.k, a.st.Ep, a.sched, a.sent, max(l.rx, a.sent), uint16(code), results.None, a.out, int64(len(s.r.Payload())+2)), a.st)
				a.st = nil
			}
		}
	} else {
		// The server ends the session: answer its close, then account for
		// everything still to come.
		if code == ws.CloseNoStatus {
			code = 0
		}
		l.sendClose(s, code)
	}
	l.connLost(s, results.WSClosed, &serverCloseError{code: code, reason: reason})
}

// connLost ends a session whose connection is gone, for why (nil: the
// run's stop): outstanding awaits and the steps still to run each get
// their row.
func (l *wsLoop) connLost(s *wsSession, kind results.ErrorKind, why error) {
	if s.state == wsDone {
		return
	}
	if s.lost == nil {
		s.lost = why
	}
	if s.state == wsDialing || s.state == wsHandshaking || s.state == wsUpgrading {
		l.connectFailed(s, s.prog.ConnectStep(), kind)
		return
	}
	if s.state == wsHTTP {
		return // its HTTP steps are the host's session's: their end goes on (afterHTTP)
	}
	if l.ex.Aborted.Load() {
		kind = results.Interrupted
	}
	for i := range s.awaits {
		if a := &s.awaits[i]; a.st != nil {
			l.keep(s, run.WSRow(s.k, a.st.Ep, a.sched, a.sent, -1, 0, kind, a.out, 0), a.st)
		}
	}
	s.awaits = s.awaits[:0]
	rest := kind
	if rest == results.Interrupted {
		rest = results.NotSent
	}
	l.restRows(s, rest)
	l.endSession(s)
}

// connectFailed records the connect row and every other row of a session
// whose connection never opened.
func (l *wsLoop) connectFailed(s *wsSession, st *run.Step, kind results.ErrorKind) {
	if l.ex.Aborted.Load() {
		kind = results.Interrupted
	}
	sent, out := s.connSent, s.connOut
	if s.state == wsDialing || s.state == wsHandshaking {
		sent, out = -1, 0 // the upgrade never went out
	}
	l.keep(s, run.WSRow(s.k, st.Ep, s.connSched, sent, -1, 0, kind, out, 0), st)
	s.lost = fmt.Errorf("the connection never opened: its connect row is %s", kind) // the rest's detail
	s.i, s.j = s.prog.Connect, 1
	rest := results.WSClosed
	if kind == results.Interrupted {
		rest = results.NotSent
	}
	l.restRows(s, rest)
	l.endSession(s)
}

// restRows records every row the cursor has not reached yet.
func (l *wsLoop) restRows(s *wsSession, kind results.ErrorKind) {
	for s.i < len(s.prog.Steps) {
		top := &s.prog.Steps[s.i]
		if top.Kind == plan.StepForEach {
			iters := int64(top.Spec.WebSocket.Max)
			if s.fe < 0 {
				l.rowsOf(s, top.Each, iters, kind, s.ready)
			} else {
				// The rest of this iteration, then the iterations after it;
				// those beyond the captured array do not exist.
				for fi := s.fi; fi < len(top.Each); fi++ {
					st := &top.Each[fi]
					if !st.Kind.Rows() {
						continue
					}
					reps := st.Repeat
					if fi == s.fi {
						reps -= s.fj
					}
					for range reps {
						l.keep(s, run.WSRow(s.k, st.Ep, s.ready, -1, -1, 0, kind, 0, 0), st)
					}
				}
				left := iters - int64(s.fe) - 1
				exist := min(max(int64(len(s.items))-int64(s.fe)-1, 0), left)
				l.rowsOf(s, top.Each, exist, kind, s.ready)
				l.rowsOf(s, top.Each, left-exist, results.NoItem, s.ready)
			}
			s.fe = -1
		} else if top.Kind.Rows() {
			for ; s.j < top.Repeat; s.j++ {
				l.keep(s, run.WSRow(s.k, top.Ep, s.ready, -1, -1, 0, kind, 0, 0), top)
			}
		}
		s.i, s.j = s.i+1, 0
	}
}

// rowsOf records times × the rows of steps.
func (l *wsLoop) rowsOf(s *wsSession, steps []run.Step, times int64, kind results.ErrorKind, sched int64) {
	for range times {
		for i := range steps {
			st := &steps[i]
			if !st.Kind.Rows() {
				continue
			}
			for range st.Repeat {
				row := run.WSRow(s.k, st.Ep, sched, -1, -1, 0, kind, 0, 0)
				if !kind.NotRequest() { // rows of no request stay out of the live figures
					l.sink.Stats.Done.Add(1)
					s.failed = true
					l.sink.Stats.Failed.Add(1)
				}
				l.sink.Keep(row, l.now)
			}
		}
	}
}

// notSentSession records every row of a session that never started.
func (l *wsLoop) notSentSession(k uint64, e int, due int64) {
	p := l.progs[e]
	if p == nil {
		l.sink.NotSent(k, e, due)
		return
	}
	s := &wsSession{k: k, prog: p, fe: -1, ready: due}
	l.restRows(s, results.NotSent)
}

// endSession closes the socket and frees the session.
func (l *wsLoop) endSession(s *wsSession) {
	if s.state == wsDone {
		return
	}
	if s.fd >= 0 {
		if len(s.out) > 0 {
			_, _ = sys.RawSend(s.fd, s.out) // the close frame, best effort
		}
		if s.tr != nil && s.state != wsDialing && s.state != wsHandshaking {
			if b := s.tr.Pending(); len(b) > 0 {
				_, _ = sys.RawSend(s.fd, b) // likewise
			}
		}
		l.dropTransport(s)
		sys.CloseFD(s.fd) // closing removes it from the epoll set
		if s.wantOut {
			s.wantOut = false
			l.outs--
		}
		if s.state == wsHandshaking {
			l.handshaking--
		}
		s.fd = -1
		l.open--
	}
	s.state = wsDone
	if s.failed {
		l.stats.sessionsFailed++
	} else {
		l.stats.sessionsCompleted++
	}
	l.stats.sessionDur.RecordValue(min(max(l.now-s.start, 1), record.HistogramMax))
	s.out, s.head, s.items = nil, nil, nil
	s.r.Release()
	l.active--
	l.free = append(l.free, s.id)
	s.t.wsLive--
	l.userFree(s.user, l.now)
	l.refill(s.t)
}

// abortAll cuts every session after the grace: outstanding awaits are
// interrupted, the rest not sent.
func (l *wsLoop) abortAll() {
	for _, s := range l.sess {
		if s.state != wsDone && s.prog != nil {
			l.connLost(s, results.Interrupted, nil)
		}
	}
}
