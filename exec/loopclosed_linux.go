package exec

import (
	"sync/atomic"
	"time"

	"github.com/tressi/tressi/compile"
)

// closedDriver is the closed model's part of a loop: its users, and when
// each next acts.
type closedDriver struct {
	users   []compile.UserSpan
	session *atomic.Uint64
	active  int // users not finished
}

// runClosed runs this loop's users from their start to their stop.
func (l *evloop) runClosed() {
	defer l.finish()
	d := &l.closedUsers
	d.active = len(d.users)
	for u := range d.users {
		l.wakes.push(d.users[u].Start, int32(u))
	}
	for {
		l.now = l.ex.clock.now()
		l.fireWakes()
		if d.active == 0 && l.busy == 0 && l.queued == 0 && l.liveSessions == 0 {
			return
		}
		l.poll(l.nextWake())
	}
}

// userNext starts user u's next request, or ends the user.
func (l *evloop) userNext(u int32) {
	ex, d := l.ex, &l.closedUsers
	if ex.stopping() || l.now >= d.users[u].Stop {
		d.active--
		return
	}
	k, entry, ok := ex.nextEntry(d.session)
	if !ok {
		// Every entry is at its max_rate: try again a little later.
		l.wakes.push(l.now+int64(time.Millisecond), u)
		return
	}
	if ex.scen.entry(entry) != nil {
		// A session started before the user's stop may finish within the grace.
		l.startSession(k, entry, u, l.now, d.users[u].Stop+int64(ex.grace))
		return
	}
	l.dispatch(ljob{k: k, entry: int32(entry), user: u, pr: l.entryRequest(entry), sched: l.now, ready: l.now})
}

// userDone follows a user's finished request: its think time, or its next
// request. After a response the next one starts at once; after a failure
// it goes through the wake heap, so a server refusing every connection
// cannot recurse the loop into itself.
func (l *evloop) userDone(u int32, done int64, answered bool) {
	if think := int64(l.ex.s.Think); think > 0 {
		l.wakes.push(done+think, u)
		return
	}
	if !answered {
		l.wakes.push(done, u)
		return
	}
	l.now = done
	l.userNext(u)
}
