package fast

import (
	"sync/atomic"
	"time"

	"github.com/tressi/tressi/compile"
)

// runUser is one closed-model user: from its start until its stop it sends
// back to back (plus the think time), each request's entry chosen by the
// global session counter, so selection is exact across all users.
func (w *worker) runUser(span compile.UserSpan, session *atomic.Uint64) {
	defer w.Flush()
	ex := w.Ex
	sessions := newSessionRunner(w)
	if !w.waitUntil(span.Start) {
		return
	}
	w.Stats.Sessions.Add(1) // a user running: the closed model's sessions
	defer w.Stats.Sessions.Add(-1)
	for now := ex.Clock.Now(); !ex.Stopping() && now < span.Stop; now = ex.Clock.Now() {
		k, entry, ok := ex.NextEntry(session)
		if !ok {
			// Every entry is at its max_rate: wait a little, not globally.
			if !w.waitUntil(ex.Clock.Now() + int64(time.Millisecond)) {
				return
			}
			continue
		}
		if ex.S.Entries[entry].Scenario {
			// A session started before the user's stop may finish within the grace.
			sessions.run(k, entry, ex.Clock.Now(), span.Stop+int64(ex.Grace))
		} else {
			w.Send(k, entry, now) // ready now: one clock read per request
		}
		if ex.S.Think > 0 && !w.waitUntil(ex.Clock.Now()+int64(ex.S.Think)) {
			return
		}
	}
}
