package loop

import (
	"runtime"
	"sync/atomic"
	"time"

	"github.com/tressi/tressi/compile"
	"github.com/tressi/tressi/exec/internal/drive"
	"github.com/tressi/tressi/exec/internal/sys"
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
	// Naps are a few tens of µs: the kernel's default timer slack (50 µs)
	// would stretch each several times over. The thread is the loop's for
	// the run, and gets the default back after it.
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	defer sys.TimerSlack(napSlack)()
	defer sys.LatencySlice(loopSlice)()
	l.startRing()
	d := &l.closedUsers
	d.active = len(d.users)
	for u := range d.users {
		l.wakeUser(d.users[u].Start, int32(u))
	}
	burst := drive.NewBurstClock() // timers fire in bursts, as in the open model
	for {
		l.now = l.ex.Clock.Now()
		if burst.Fire(l.now, l.nextWake(), l.ex.Stopping()) {
			if l.ws != nil {
				l.ws.begin(l.now)
			}
			l.fireTimers()
		}
		if d.active == 0 && l.busy == 0 && l.queued == 0 && l.liveSessions == 0 && (l.ws == nil || l.ws.idle()) {
			return
		}
		l.poll(burst.Wake(l.nextWake()))
	}
}

// userNext starts user u's next request, or ends the user.
func (l *evloop) userNext(u int32) {
	ex, d := l.ex, &l.closedUsers
	if ex.Stopping() || l.now >= d.users[u].Stop {
		d.active--
		return
	}
	k, entry, ok := ex.NextEntry(d.session)
	if !ok {
		// Every entry is at its max_rate: try again a little later.
		l.wakeUser(l.now+int64(time.Millisecond), u)
		return
	}
	if ex.S.Entries[entry].WebSocket {
		l.ws.begin(l.now)
		l.ws.admit(k, l.ws.progs[entry], l.now, u)
		return
	}
	if ex.Scen.Entry(entry) != nil {
		// A session started before the user's stop may finish within the grace.
		l.startSession(k, entry, u, l.now, d.users[u].Stop+int64(ex.Grace))
		return
	}
	l.dispatch(ljob{k: k, entry: int32(entry), user: u, pr: l.entryRequest(entry), sched: l.now, ready: l.now})
}

// userDone follows a user's finished request: its think time, or its next
// request. After a response the next one starts at once; after a failure
// it goes through the wake heap, so a server refusing every connection
// cannot recurse the loop into itself.
func (l *evloop) userDone(u int32, done int64, answered bool) {
	if think := int64(l.ex.S.Think); think > 0 {
		l.wakeUser(done+think, u)
		return
	}
	if !answered {
		l.wakeUser(done, u)
		return
	}
	l.now = done
	l.userNext(u)
}

// The closed model's nap. A loop with many HTTP/2 streams in flight
// wakes, when it waits on its sockets, for nearly every response, and
// each wake-up is paid by the server too: its write that finds the loop
// asleep wakes it. So while at least napBusy streams are in flight, two
// or more per connection, the loop sleeps a share of their mean latency
// (1/napShare, at most napMost) instead, then reads what came meanwhile in
// one go and writes each connection's next requests together: far fewer
// wake-ups and writes per request, on both sides. HTTP/1.1 gains nothing
// by it (a connection has one response to read and one request to write
// whenever it wakes) and lost throughput, so it never naps. The figures
// are in docs/engines.md, "The closed model's nap".
//
// The responses carry the kernel's arrival stamps, so the nap is not in
// their latency (a read that takes several responses of one connection
// stamps them all with the last one's arrival, at most the nap late).
// Each user's next request waits for the nap's end; that wait is in its
// latency, as the user was ready. A nap that brings nothing makes the
// next wait one on the sockets, so a slow server costs no more wake-ups
// than without naps.
const (
	napBusy  = 32
	napShare = 8
	napMost  = int64(100 * time.Microsecond)
	napLeast = int64(5 * time.Microsecond)
	napSlack = 1000 // ns
)

// napFor is how long the loop naps before it reads, 0 when it waits on
// its sockets instead.
func (l *evloop) napFor() int64 {
	if !l.rx.On || l.napIdle || l.streams < napBusy || l.streams < 2*l.muxes || l.ex.S.Model != compile.Closed {
		return 0
	}
	if nap := min(l.latency/napShare, napMost); nap >= napLeast {
		return nap
	}
	return 0
}
