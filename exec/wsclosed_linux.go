package exec

import (
	"math"
	"sync/atomic"
	"time"

	"github.com/tressi/tressi/compile"
)

// The closed model on the WebSocket loop: each user runs sessions one
// after another, from its start to its stop, as closed-model users do on
// the HTTP loop (loopclosed_linux.go). A user's next session starts the
// think time (load.think) after its last one ended, taking the next
// session number from the run's shared counter, so the scenario's weights
// and max_rate apply as for HTTP. A session started before its user's stop
// may go on through the grace; after that it sends nothing more and
// records what is left as not_sent, so every session still has all its
// rows.

// wsUsers is a loop's share of the closed model's users.
type wsUsers struct {
	spans   []compile.UserSpan
	session *atomic.Uint64
	wakes   wakeHeap // when each user next acts
	active  int      // users not finished
}

// closedModel reports whether this loop runs users rather than slots.
func (l *wsLoop) closedModel() bool { return l.users.session != nil }

// startUsers puts every user's start in the wake heap.
func (l *wsLoop) startUsers() {
	u := &l.users
	u.active = len(u.spans)
	for i := range u.spans {
		u.wakes.push(u.spans[i].Start, int32(i))
	}
}

// fireUsers starts the sessions of the users whose instant has come
// (every one once the run stops, so they end).
func (l *wsLoop) fireUsers() {
	u := &l.users
	for u.wakes.len() > 0 && (u.wakes.top() <= l.now || l.ex.stopping()) {
		_, id := u.wakes.pop()
		l.userNext(id)
	}
}

// userNext starts user id's next session, or ends the user.
func (l *wsLoop) userNext(id int32) {
	ex, u := l.ex, &l.users
	span := u.spans[id]
	if ex.stopping() || l.now >= span.Stop {
		u.active--
		return
	}
	k, entry, ok := ex.nextEntry(u.session)
	if !ok {
		// Every scenario is at its max_rate: try again a little later.
		u.wakes.push(l.now+int64(time.Millisecond), id)
		return
	}
	l.admit(k, l.progs[entry], l.now, id)
}

// userFree follows the end, at done, of a session of user id (-1: none):
// the user's next session comes the think time later. It goes through the
// wake heap even without a think time, so a server refusing every
// connection cannot recurse the loop into itself.
func (l *wsLoop) userFree(id int32, done int64) {
	if id < 0 {
		return
	}
	l.users.wakes.push(done+int64(l.ex.s.Think), id)
}

// userDeadline is when a session of user id stops sending: its user's
// stop plus the grace (never, in the open model).
func (l *wsLoop) userDeadline(id int32) int64 {
	if id < 0 {
		return math.MaxInt64
	}
	return l.users.spans[id].Stop + int64(l.ex.grace)
}
