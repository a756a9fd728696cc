package loop

import (
	"github.com/tressi/tressi/exec/internal/record"
	"github.com/tressi/tressi/exec/internal/run"
	"github.com/tressi/tressi/exec/internal/session"
	"github.com/tressi/tressi/plan"
	"github.com/tressi/tressi/results"
	"github.com/tressi/tressi/ws"
)

// A WebSocket session's program cursor: the steps it runs, the frames it
// sends, and the answers that settle its awaits.

// message matches a data frame against the outstanding awaits, in the
// order they were sent: the first that matches takes it.
func (l *wsLoop) message(s *wsSession, p []byte) {
	l.stats.received++
	if l.marks {
		session.FindMarks(p, l.tag, func(sent int64, key uint64) {
			if key>>16 == s.k {
				return // its own message coming back
			}
			l.stats.delivery.RecordValue(min(max(l.rx-sent, 1), record.HistogramMax))
			l.stats.deliveries[key]++
		})
	}
	for i := range s.awaits {
		a := &s.awaits[i]
		if a.st == nil || a.st.Await == nil || !a.st.Await.Matches(p, a.want, l.scratch[:0]) {
			continue
		}
		status := a.st.Await.StatusOf(p)
		done := max(l.rx, a.sent)
		row := run.WSRow(s.k, a.st.Ep, a.sched, a.sent, done, status, results.None, a.out, int64(len(p)))
		l.keepFrame(s, row, a.st, p)
		ok := run.Succeeded(a.st.Req, int(status), true)
		a.st.FillMessage(&s.cap, p, p, ok)
		if !ok && a.st.Exit {
			l.exitSession(s, i)
			return
		}
		l.answered(s, i, done)
		return
	}
	l.stats.unmatched++
	name := s.prog.Name
	if st := l.current(s); st != nil {
		name = st.Spec.Name
	}
	l.stats.unmatchedByStep[name]++
	if l.stats.unmatchedByStep[name] <= 3 {
		l.ex.Rec.Sample(results.Sample{Endpoint: name, Error: "unmatched", BodySize: run.ClampU32(int64(len(p))),
			Body: append([]byte(nil), p[:min(len(p), l.ex.MaxSample)]...)})
	}
}

// answered removes await i, settled at done; a blocking one lets the
// program go on.
func (l *wsLoop) answered(s *wsSession, i int, done int64) {
	a := &s.awaits[i]
	block, pause := a.block, a.pause
	s.lastAnswer = done
	// Rotate the answered entry to the end: the rest keep their order, and
	// its buffers are free for the next send. The last one (the only one,
	// mostly) is there already.
	n := len(s.awaits)
	if i < n-1 {
		e := *a
		copy(s.awaits[i:], s.awaits[i+1:])
		s.awaits[n-1] = e
	}
	s.awaits = s.awaits[:n-1]
	if block {
		s.blocked = false
		s.wakeAt = done + pause
		s.ready = s.wakeAt
	}
	l.step(s)
}

// current is the step the cursor is on (nil at the end).
func (l *wsLoop) current(s *wsSession) *run.Step {
	if s.i >= len(s.prog.Steps) {
		return nil
	}
	st := &s.prog.Steps[s.i]
	if s.fe >= 0 && s.fi < len(st.Each) {
		return &st.Each[s.fi]
	}
	return st
}

// step runs the program from the cursor as far as it can go now: sends
// what is due, and stops at a blocking await, a pause or the end.
func (l *wsLoop) step(s *wsSession) {
	for s.state == wsOpen {
		if l.stopSending(s) {
			l.restRows(s, results.NotSent)
			l.finishProgram(s)
			return
		}
		if s.blocked {
			l.armTimer(s)
			return
		}
		if s.wakeAt > l.now {
			l.armTimer(s)
			return
		}
		if s.wakeAt >= 0 {
			s.ready = s.wakeAt
		}
		s.wakeAt = -1
		if s.i >= len(s.prog.Steps) {
			l.finishProgram(s)
			return
		}
		top := &s.prog.Steps[s.i]
		if top.Kind == plan.StepForEach {
			l.forEach(s, top)
			continue
		}
		if top.Kind == plan.StepClose && len(s.awaits) > 0 {
			// The close handshake waits for the answers still awaited.
			l.armTimer(s)
			return
		}
		l.run1(s, top, &s.j, -1)
		if s.j >= top.Repeat {
			s.i++
			s.j = 0
		}
	}
}

// forEach moves through a for_each's iterations.
func (l *wsLoop) forEach(s *wsSession, top *run.Step) {
	w := top.Spec.WebSocket
	if s.fe < 0 {
		s.fe, s.fi, s.fj = 0, 0, 0
		s.items = s.items[:0]
		if w.Items >= 0 && w.Items < len(s.cap.Have) && s.cap.Have[w.Items] {
			items, _ := session.JSONArrayTexts(s.cap.Values[w.Items], w.Max)
			s.items = items
		} else {
			// No array to go through: every scheduled row says why.
			l.rowsOf(s, top.Each, int64(w.Max), results.CaptureFailed, s.ready)
			s.fe, s.i, s.j = -1, s.i+1, 0
			return
		}
	}
	if s.fe >= len(s.items) || s.fe >= w.Max {
		missing := int64(w.Max - min(len(s.items), w.Max))
		if s.fe < w.Max && missing > 0 {
			l.rowsOf(s, top.Each, missing, results.NoItem, s.ready)
		}
		s.fe, s.i, s.j = -1, s.i+1, 0
		return
	}
	st := &top.Each[s.fi]
	l.run1(s, st, &s.fj, s.fe)
	if s.fj >= st.Repeat {
		s.fi, s.fj = s.fi+1, 0
		if s.fi >= len(top.Each) {
			s.fi = 0
			s.fe++
		}
	}
}

// run1 runs repeat *j of st (inside for_each iteration each, or -1).
func (l *wsLoop) run1(s *wsSession, st *run.Step, j *int, each int) {
	switch st.Kind {
	case plan.StepThink:
		*j = st.Repeat
		s.wakeAt = l.now + int64(l.ex.S.Pause(st.Spec, st.Id, s.k, 0))
	case plan.StepHold:
		*j = st.Repeat
		s.wakeAt = l.now + int64(st.Spec.WebSocket.Hold)
	case plan.StepClose:
		*j = st.Repeat
		l.now = l.ex.Clock.Now()
		s.closeSched, s.closeSent, s.closeEP = max(s.ready, s.lastAnswer), l.now, st.Ep
		s.closing = true
		s.state = wsClosing
		out := l.sendClose(s, st.Spec.WebSocket.CloseCode)
		l.stats.sent++
		s.awaits = append(s.awaits, wsPending{st: st, sched: s.closeSched, sent: l.now, deadline: l.now + int64(st.Req.Timeout), block: true, out: out})
		s.blocked = true
		l.armTimer(s)
	case plan.StepSend:
		l.send(s, st, *j, each)
		*j++
	default:
		*j = st.Repeat
	}
}

// send sends one frame of st and registers its await.
func (l *wsLoop) send(s *wsSession, st *run.Step, j, each int) {
	pause := int64(l.ex.S.Pause(st.Spec, st.Id, s.k, j))
	if !s.cap.HasAll(st.Needs) {
		l.keep(s, run.WSRow(s.k, st.Ep, s.ready, -1, -1, 0, results.CaptureFailed, 0, 0), st)
		return
	}
	l.now = l.ex.Clock.Now()
	var mark []byte
	w := st.Spec.WebSocket
	if w.Marked {
		s.frames++
		mark = session.AppendMark(l.scratch[:0], l.tag, l.now, s.k, s.frames)
		l.scratch = mark[:0]
		l.stats.marked++
	}
	vals := l.values(s, mark, each)
	body := st.Req.Spec.Body.Append(l.frame[:0], vals)
	if st.Skip != nil && st.Skip.Match(body) {
		// Not sent: a row of its own kind, and the session goes on as if
		// the frame had been answered at once.
		if w.Marked {
			l.stats.marked--
		}
		row := run.WSRow(s.k, st.Ep, s.ready, -1, -1, 0, results.Skipped, 0, 0)
		l.sink.Keep(row, l.now)
		s.wakeAt = s.ready + pause
		return
	}
	op := ws.OpText
	if w.Binary {
		op = ws.OpBinary
	}
	start := len(body)
	l.frame = ws.AppendFrame(body, op, true, body, true, l.maskKey())
	frame := l.frame[start:]
	l.write(s, frame)
	l.stats.sent++
	if st.Await == nil {
		l.keep(s, run.WSRow(s.k, st.Ep, s.ready, l.now, l.now, 0, results.None, int64(len(frame)), 0), st)
		s.wakeAt = s.ready + pause
		return
	}
	p := wsPending{st: st, sched: s.ready, sent: l.now, deadline: l.now + st.Await.Timeout, out: int64(len(frame)),
		pause: pause, block: w.Wait, each: each}
	if n := len(s.awaits); n < cap(s.awaits) {
		p.want = s.awaits[:n+1][n].want // the buffers of an answered await, for its values
	}
	p.want = st.Want(p.want, vals)
	s.awaits = append(s.awaits, p)
	if w.Wait {
		s.blocked = true
	} else {
		// Not waiting: the next frame is due a pause after this one was,
		// so a late send does not push every later one back.
		s.wakeAt = s.ready + pause
	}
	l.armTimer(s)
}
