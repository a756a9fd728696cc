package loop

import (
	"github.com/tressi/tressi/exec/internal/run"
	"github.com/tressi/tressi/plan"
	"github.com/tressi/tressi/results"
)

// A WebSocket session keeps at most one pending entry in its loop's timer
// heap (looptimers_linux.go), mostly: the earliest of its pause's end, its awaits' deadlines and
// its dial or upgrade timeout. When it fires, the session does what is due
// and arms the next.

// armTimer puts the session's next instant (pause end, earliest await
// deadline) in the timer heap.
func (l *wsLoop) armTimer(s *wsSession) {
	if s.state == wsHTTP {
		return // its HTTP steps wait in the host's heap, as its session's
	}
	at := int64(-1)
	if !s.blocked && s.wakeAt > l.now {
		at = s.wakeAt
	}
	for i := range s.awaits {
		if d := s.awaits[i].deadline; s.awaits[i].st != nil && (at < 0 || d < at) {
			at = d
		}
	}
	if s.state == wsDialing || s.state == wsHandshaking || s.state == wsUpgrading {
		return
	}
	if at > s.deadline && !s.cut {
		at = s.deadline // a closed-model user's session stops sending then
	}
	l.setTimer(s, at)
}

func (l *wsLoop) setTimer(s *wsSession, at int64) {
	if at < 0 || at == s.timerAt {
		return
	}
	if s.timerAt >= 0 && s.timerAt < at && s.timerAt > l.now {
		// An earlier timer is pending: when it fires, the session arms
		// the next one. One heap entry per session at most, mostly.
		return
	}
	s.timerAt = at
	l.host.timers.Push(at, timer{kind: timerWS, id: s.id, k: s.k})
}

// fired handles a session's entry of the host's timer heap, due at at
// (the host's fireTimers touched the session already).
func (l *wsLoop) fired(at int64, t timer) {
	s := l.sess[t.id]
	if s.state == wsDone || s.k != t.k || s.timerAt != at {
		return // stale: the session moved on
	}
	s.timerAt = -1
	l.timeout(s)
	if s.state != wsDone && s.timerAt < 0 {
		l.armTimer(s)
	}
}

// timeout handles a session's timer: a dial or upgrade too slow, awaits
// past their deadline, or a pause that ended.
func (l *wsLoop) timeout(s *wsSession) {
	switch s.state {
	case wsDialing, wsHandshaking:
		if l.now < s.dialEnd {
			l.setTimer(s, s.dialEnd) // an earlier timer of the session's, come before this dial's end
			return
		}
		l.connectFailed(s, s.prog.ConnectStep(), results.ConnectTimeout)
		return
	case wsHTTP:
		return
	case wsUpgrading:
		if end := s.upgradeEnd(); l.now < end {
			l.setTimer(s, end) // the dial's timer, come while the upgrade still has time
			return
		}
		l.connectFailed(s, s.prog.ConnectStep(), results.Timeout)
		return
	}
	for i := 0; i < len(s.awaits); {
		a := &s.awaits[i]
		if a.st == nil || a.deadline > l.now {
			i++
			continue
		}
		l.keep(s, run.WSRow(s.k, a.st.Ep, a.sched, a.sent, -1, 0, results.AwaitTimeout, a.out, 0), a.st)
		a.st.FillMessage(&s.cap, nil, nil, false)
		if a.st.Exit {
			l.exitSession(s, i)
			return
		}
		if a.st.Kind == plan.StepClose {
			s.awaits = s.awaits[:0]
			l.endSession(s)
			return
		}
		l.answered(s, i, l.now)
		if s.state == wsDone {
			return
		}
	}
	if s.i >= len(s.prog.Steps) && len(s.awaits) == 0 && s.state != wsDone {
		l.finishProgram(s)
		return
	}
	l.step(s)
}
