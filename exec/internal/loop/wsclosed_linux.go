package loop

import "math"

// The closed model with WebSocket scenarios: a user runs sessions (and
// HTTP requests, in a plan of both kinds) one after another, from its
// start to its stop, on its loop's closed driver (loopclosed_linux.go). A
// user's next session starts the think time (load.think) after its last
// one ended, taking the next session number from the run's shared
// counter, so the scenario's weights and max_rate apply as for HTTP. A
// session started before its user's stop may go on through the grace;
// after that it sends nothing more and records what is left as not_sent,
// so every session still has all its rows.

// userFree follows the end, at done, of a session of user id (-1: none):
// the user's next session comes the think time later. It goes through the
// wake heap even without a think time, so a server refusing every
// connection cannot recurse the loop into itself.
func (l *wsLoop) userFree(id int32, done int64) {
	if id < 0 {
		return
	}
	l.host.wakeUser(done+int64(l.ex.S.Think), id)
}

// userDeadline is when a session of user id stops sending: its user's
// stop plus the grace (never, in the open model).
func (l *wsLoop) userDeadline(id int32) int64 {
	if id < 0 {
		return math.MaxInt64
	}
	return l.host.closedUsers.users[id].Stop + int64(l.ex.Grace)
}
