package loop

import (
	"net"
	"sync/atomic"
	"time"

	"github.com/tressi/tressi/compile"
	"github.com/tressi/tressi/exec/internal/drive"
	"github.com/tressi/tressi/exec/internal/run"
	"github.com/tressi/tressi/exec/internal/sys"
	"github.com/tressi/tressi/internal/digest"
	"golang.org/x/sys/unix"
)

// evloop is the event-loop engine's sender: one goroutine drives many
// connections on raw non-blocking sockets through its own epoll set, the
// way wrk does. Against the fasthttp engine on one core it saves, per
// request, a goroutine park and wake-up, the read that finds no response
// yet (the runtime reads right after writing; epoll here reports the
// socket readable first), the runtime's syscall bookkeeping and fasthttp's
// parsing; and it owns the open model's clock, so a slot goes out at its
// due instant from the same loop that reads responses, with no pacer, ring
// or timer per wake-up.
//
// A loop holds its P: there is one loop fewer than Ps (see chooseEngine),
// so the recorder, the monitor and timers run on the spare one, and the
// loop never yields (a yield wakes an idle P's thread: a futex and two
// context switches each time on one core).
//
// The files of the loop, by concern (see the package comment for the
// seams between them):
//
//	sys/poller_linux.go   epoll and the raw system calls (package sys)
//	loop_linux.go         the loop: building, waiting, dispatching events
//	loopconn_linux.go     a connection's state machine
//	transport.go          the transport seam (plain sockets, TLS)
//	loopcodec_linux.go    HTTP/1.1 framing; looph2_linux.go HTTP/2's
//	loopopen_linux.go     the open model's driver
//	loopclosed_linux.go   the closed model's driver
//	looptimers_linux.go   the timer heap: users, sessions, deadlines, WebSocket timers
//	looptimeout_linux.go  timeouts, stops and aborts
type evloop struct {
	ex   *run.Executor
	sink run.RowSink // rows, live figures, samples
	p    *sys.Poller
	now  int64

	targets []*ltarget
	conns   []*lconn // by id, the epoll data of its socket
	free    []int32  // ids of closed connections, reused
	// closed: ids freed while handling a batch of events; reused only after
	// it, so a later event of the batch for a closed connection cannot land
	// on a new one that took its id.
	closed []int32
	busy   int // connections connecting or carrying a request
	queued int // jobs waiting for a connection

	open        openDriver   // the open model's slots
	closedUsers closedDriver // the closed model's users
	// timers orders what waits for an instant (looptimers_linux.go); due
	// holds the entries being fired. hastened: the run stopped, and users
	// and sessions act at once.
	timers       timerHeap
	due          []drive.Timed[timer]
	hastened     bool
	sessions     []lsession // by id
	freeSessions []int32
	// digests answer endpoints' digest challenges, by target; cnonce
	// numbers the answerers' client nonces (digest_linux.go).
	digests      []*digest.Answerer
	cnonce       uint64
	freeChains   []*redirectChain // spent redirect chains, for the next
	liveSessions int

	// gaugesDue is when storeGauges stores the loop's gauges next.
	gaugesDue int64
	// rx: the open model reads responses with the kernel's receive
	// timestamps (SO_TIMESTAMPING), so it can sleep through their arrival
	// and read them in one go at the next burst without adding that wait
	// to their latency (rxstamp_linux.go). outs counts connections waiting
	// to write, which cannot wait.
	rx       sys.RxStamps
	outs     int
	partials int // connections with part of a response: a large body is read as it comes
	// handshaking counts connections whose transport handshake runs: the
	// open model does not sleep through their bytes, which carry no reply
	// to stamp but hold up the next step of the handshake.
	handshaking int
	refilling   bool
	// dirtyMuxes are HTTP/2 connections with frames to write before the
	// loop waits (see muxLater).
	dirtyMuxes []*lconn
	lingered   bool // the dirty muxes waited a round already
	// A closed-model loop naps through its responses while many HTTP/2
	// streams are in flight (see napFor): latency is the running mean of
	// the streams' service latencies, and napIdle says the last nap
	// brought nothing, so the next wait is on the sockets. muxes counts
	// the loop's open HTTP/2 connections, streams the streams in flight
	// on them.
	latency int64
	napIdle bool
	muxes   int
	streams int
	enc     h1Encoder // renders requests with holes, the way fasthttp sends them
	// cipher is where a connection's transport reads the socket's bytes
	// into before taking them: one buffer per loop, since the transport
	// takes every byte at once.
	cipher []byte
	// ws is the loop's WebSocket sessions, nil in a plan without any:
	// their sockets are in the loop's epoll set (ids with wsBit), their
	// timers fire in its bursts, their rows go to its sink.
	ws *wsLoop
}

// ltarget is one target's share of connections in a loop, for every kind
// of connection: the dial path, then the HTTP pool, then the WebSocket
// sessions. The kinds share the cap's size (maxConns, this loop's share of
// the target's connections) and count against it apart: open HTTP
// connections, live WebSocket sessions.
type ltarget struct {
	dialTarget
	idx      int    // in the schedule's targets
	host     string // the Host a WebSocket upgrade names
	maxConns int
	open     int
	idle     []*lconn
	queue    jobQueue
	maxBody  int64
	// proto is what the target speaks; HTTP/2 connections are in muxes,
	// each taking streams up to maxStreams (0: the server's limit).
	proto      uint8
	maxStreams int
	muxes      []*lconn
	recent     *lconn // of muxes, where a stream last ended (see readyMux)
	// streamLimit is how many streams the server lets a connection carry,
	// once learned (see sawGoAway); 0: none known. goAwayAfter is the
	// count its first GOAWAY came after, waiting for a second to agree.
	streamLimit, goAwayAfter int
	// timerAt is the instant of the queue's entry in the loop's timer
	// heap, -1 for none (looptimers_linux.go).
	timerAt int64
	// wsLive counts the WebSocket sessions holding a connection, wsQueue
	// those waiting for one (wsadmit_linux.go).
	wsLive  int
	wsQueue drive.Fifo[wsQueued]
}

// What a target speaks (compile.Target.Protocol).
const (
	protoHTTP1 = iota
	protoH2    // HTTP/2 over TLS, by ALPN
	protoH2C   // HTTP/2 over plain TCP, prior knowledge
	protoAuto  // over TLS, ALPN picks HTTP/2 or HTTP/1.1
)

// targetProto maps a schedule target's protocol to the loop's.
func targetProto(p string) uint8 {
	switch p {
	case compile.ProtocolH2:
		return protoH2
	case compile.ProtocolH2C:
		return protoH2C
	case compile.ProtocolAuto:
		return protoAuto
	}
	return protoHTTP1
}

// alpn is the protocol a TLS transport's handshake chose, "" when none.
func alpn(tr run.Transport) string {
	if a, ok := tr.(interface{ NegotiatedProtocol() string }); ok {
		return a.NegotiatedProtocol()
	}
	return ""
}

// ljob is one request waiting for, or carried by, a connection.
type ljob struct {
	k     uint64
	entry int32
	user  int32 // closed model: the user sending it (not through a session); -1 otherwise
	// st is the session step it sends, nil outside a session; then sess
	// is the session's id, and own says it rides the session's own
	// connection (connection = "session").
	st   *run.Step
	sess int32
	own  bool
	// ws: st is an HTTP step of a WebSocket scenario (before its connect),
	// which answers once: no redirects, digest answers or cookies.
	ws    bool
	retry bool // it goes out again, on a fresh connection (see fail)
	// auth: a digest challenge was answered; what its first exchange left.
	auth authRound
	// redir: its redirects so far, nil before its first (redirect_linux.go).
	redir *redirectChain
	pr    *run.PreparedRequest
	sched int64 // the instant latency counts from
	ready int64 // when it asked for a connection: its timeout counts from here
}

// Sizes: a connection's read buffer starts small (thousands of connections
// answering a few hundred bytes need no more) and doubles, up to maxReadBuf,
// when a response head does not fit it or a read fills it.
const (
	readBuf     = 4 << 10
	maxReadBuf  = h1MaxHead + 4<<10
	maxEvents   = 256
	scanEvery   = int64(time.Millisecond) // WebSocket sessions' reads (wsLoop.waitFor)
	longestWait = 50 * time.Millisecond   // bounded so stops and aborts are seen
)

func LoopSupported() bool { return true }

// newLoops builds n loops over the executor's targets, at addrs,
// splitting each target's connections between them.
func newLoops(ex *run.Executor, n int, addrs []*net.TCPAddr) ([]*evloop, error) {
	loops := make([]*evloop, 0, n)
	if ex.Protos == nil {
		ex.Protos = make([]run.ProtocolCounts, len(ex.S.Targets))
	}
	for i := range n {
		p, err := sys.NewPoller(maxEvents)
		if err != nil {
			for _, l := range loops {
				l.p.Close()
			}
			return nil, err
		}
		l := &evloop{ex: ex, p: p} // its sink comes with the recorder (startLoops…)
		l.enc.vals.Seed = ex.S.Seed
		err = l.addTargets(addrs, i, n)
		if err == nil && ex.WSProgs != nil {
			l.ws = newWSLoop(ex, l, ex.WSProgs, i)
		}
		if err != nil {
			p.Close()
			for _, l := range loops {
				l.p.Close()
			}
			return nil, err
		}
		loops = append(loops, l)
	}
	return loops, nil
}

// addTargets gives loop i (of n) its share of each target's connections,
// and the targets' dial paths.
func (l *evloop) addTargets(addrs []*net.TCPAddr, i, n int) error {
	ex := l.ex
	for ti := range ex.S.Targets {
		t := &ex.S.Targets[ti]
		share := t.Connections / n
		if i < t.Connections%n {
			share++
		}
		d, err := dialTargetFor(ex, t, addrs[ti], ex.WSProgs != nil)
		if err != nil {
			return err
		}
		l.targets = append(l.targets, &ltarget{dialTarget: d, idx: ti, host: t.Host, maxConns: max(share, 1),
			maxBody: int64(ex.MaxBody), proto: targetProto(t.Protocol), maxStreams: t.MaxStreams, timerAt: -1})
	}
	return nil
}

// discard closes a loop that will not run, and its warm-up connections.
func (l *evloop) discard() {
	for _, c := range l.conns {
		if c != nil && c.fd >= 0 {
			sys.CloseFD(c.fd)
		}
	}
	l.p.Close()
}

// sockaddr is a as Connect takes it, and its address family.
func sockaddr(a *net.TCPAddr) (unix.Sockaddr, int) {
	if ip4 := a.IP.To4(); ip4 != nil {
		sa := &unix.SockaddrInet4{Port: a.Port}
		copy(sa.Addr[:], ip4)
		return sa, unix.AF_INET
	}
	sa := &unix.SockaddrInet6{Port: a.Port}
	copy(sa.Addr[:], a.IP.To16())
	return sa, unix.AF_INET6
}

// startLoopsOpen runs the open model on the loops, each with its own pass
// over the schedule.
func startLoopsOpen(ex *run.Executor, loops []*evloop, slots func() compile.SlotSource) {
	for i, l := range loops {
		l.sink = ex.NewSink()
		l.useStamps()
		l.open.init(ex, slots(), i, len(loops))
		ex.Wg.Go(l.runOpen)
	}
}

// startLoopsClosed runs the closed model's users of this shard on the
// loops, dealt round-robin.
func startLoopsClosed(ex *run.Executor, loops []*evloop, session *atomic.Uint64) {
	users := ex.DealUsers(len(loops))
	for i, l := range loops {
		l.closedUsers.users = users[i]
		l.sink = ex.NewSink()
		l.closedUsers.session = session
		if stampsWanted(ex.S) {
			l.useStamps()
		}
		ex.Wg.Go(l.runClosed)
	}
}

// useStamps turns on the kernel's receive stamps for this loop's
// connections. The kernel turns stamping on lazily, after the first socket
// asks for it: asking now, on a socket kept for the run, stamps the first
// responses too. Without it the loop reads as responses come.
func (l *evloop) useStamps() {
	if !l.rx.On { // else the warm-up asked already
		l.rx.Start()
	}
}

// stampsWanted says whether a run's loops read with receive stamps: the
// open model sleeps through responses, and so does the closed model over
// HTTP/2 (see napFor) or with WebSocket sessions; a closed HTTP/1.1 run
// reads as responses come, and plain reads cost less.
func stampsWanted(s *compile.Schedule) bool {
	if s.Model == compile.Open || run.HasWebSocket(s) {
		// WebSocket sessions' replies are slept through in both models.
		return true
	}
	for _, t := range s.Targets {
		if targetProto(t.Protocol) != protoHTTP1 {
			return true
		}
	}
	return false
}

// poll waits for socket events until wake (-1: no instant to keep), handles
// them, and checks timeouts and stops.
func (l *evloop) poll(wake int64) {
	ex := l.ex
	now := ex.Clock.Now()
	timeout := int64(longestWait)
	if wake >= 0 {
		timeout = min(timeout, wake-now)
	}
	nap := l.napFor()
	if len(l.dirtyMuxes) > 0 && !l.lingered && nap == 0 {
		// HTTP/2 frames wait one more round of events, as h2load's do: a
		// round that does not block, and brings the responses that came in
		// meanwhile, whose next requests then share the write. (A loop
		// about to nap has just read what came in, and writes at once.)
		timeout, l.lingered = 0, true
	} else {
		l.flushMuxes()
		l.lingered = false
	}
	if l.ws != nil {
		timeout = l.ws.waitFor(timeout)
	}
	l.storeGauges(now, timeout, false)
	if len(l.sink.Rows) > 0 && now-l.sink.First > run.FlushAge/2 {
		l.sink.Flush() // a slow run still reaches the file every second
	}
	napped := false
	if l.rx.On && timeout > 0 && l.outs == 0 && l.queued == 0 && l.partials == 0 && l.handshaking == 0 &&
		(l.ws == nil || l.ws.sleepable()) {
		// Sleep through the responses instead of waking for each: they
		// carry the kernel's arrival time, and are read together below.
		// The open model sleeps to its next burst, the closed model naps;
		// WebSocket sessions' replies are slept through in both.
		switch {
		case nap > 0:
			sys.RawSleep(min(timeout, nap))
			timeout, napped = 0, true
		case l.ex.S.Model == compile.Open || l.ws != nil:
			sys.RawSleep(timeout)
			timeout = 0
		}
	}
	n, err := l.p.Wait(max(timeout, 0))
	l.napIdle = napped && n == 0 && len(l.p.Done) == 0
	if err != nil {
		// The epoll set is broken: nothing more can be sent or read. The
		// run stops with the error; what is in flight is interrupted.
		ex.Broken(err)
	}
	l.now = l.rx.Now(&ex.Clock)
	if l.ws != nil {
		l.ws.woke(l.now, l.p.Evs[:n], n == len(l.p.Evs))
	}
	for i := range n {
		ev := &l.p.Evs[i]
		if ev.Fd == sys.WakeID {
			l.woken()
			continue
		}
		if ev.Fd&sys.WSBit != 0 {
			l.ws.eventID(ev.Fd&^sys.WSBit, ev.Events)
			continue
		}
		c := l.conns[ev.Fd]
		if c == nil || c.fd < 0 {
			continue
		}
		l.event(c, ev.Events)
	}
	l.completions()
	if ex.Aborted.Load() {
		l.abort()
	}
	if ex.Stopping() {
		l.dropQueued()
	}
	l.free = append(l.free, l.closed...)
	l.closed = l.closed[:0]
	if l.ws != nil {
		l.ws.after()
	}
}

// woken looks again at the connections and sessions another goroutine
// asked about: a transport whose handshake moved on outside the loop.
func (l *evloop) woken() {
	for _, id := range l.p.Woken() {
		if id&sys.WSBit != 0 {
			l.ws.wokenID(id &^ sys.WSBit)
			continue
		}
		if int(id) < len(l.conns) {
			if c := l.conns[id]; c.fd >= 0 {
				l.pump(c)
			}
		}
	}
}

// event handles one socket's readiness.
func (l *evloop) event(c *lconn, ev uint32) {
	switch c.state {
	case connDialing:
		if ev&(unix.EPOLLOUT|unix.EPOLLERR|unix.EPOLLHUP) == 0 {
			return
		}
		if err := sys.ConnectResult(c.fd); err != nil {
			l.fail(c, &run.DialError{Err: err})
			return
		}
		l.connected(c)
	case connHandshaking:
		if ev&(unix.EPOLLIN|unix.EPOLLRDHUP|unix.EPOLLHUP|unix.EPOLLERR) != 0 {
			l.read(c)
			if c.state != connHandshaking {
				return
			}
		}
		l.pump(c)
	case connBusy:
		if c.wantOut && ev&(unix.EPOLLOUT|unix.EPOLLERR) != 0 {
			l.write(c)
			if c.state != connBusy || c.pending != nil {
				return
			}
		}
		if ev&(unix.EPOLLIN|unix.EPOLLRDHUP|unix.EPOLLHUP|unix.EPOLLERR) != 0 {
			l.read(c)
		}
	case connIdle:
		if c.tr != nil && l.idleRecords(c) {
			return
		}
		// An idle connection has nothing to say: the server closed it
		// (or sent bytes nobody asked for). Either way it is done, and
		// never carries a request.
		l.closeConn(c)
		l.refill(c.t)
	}
}

// dispatch gives a job a connection: an idle one, a new one, or a place in
// the target's queue.
func (l *evloop) dispatch(j ljob) {
	t := l.targets[j.target()]
	if j.own {
		l.dispatchOwn(t, j)
		return
	}
	if t.proto != protoHTTP1 {
		if c := t.readyMux(); c != nil {
			l.muxStart(c, j)
			return
		}
	}
	if n := len(t.idle); n > 0 {
		c := t.idle[n-1]
		t.idle = t.idle[:n-1]
		l.begin(c, j)
		return
	}
	l.dialOrQueue(t, j)
}

// dispatchOwn gives a job of a session with its own connections the
// session's connection to t, a new one, or a place in t's queue. Its
// connections count against the target's cap like the pool's: an idle
// pool connection makes room for it.
func (l *evloop) dispatchOwn(t *ltarget, j ljob) {
	if c := l.sessions[j.sess].conns[t.idx]; c != nil {
		if c.mux != nil {
			// Its own HTTP/2 connection: a session sends one request at
			// a time, so a stream is free.
			l.muxStart(c, j)
			return
		}
		if c.state == connIdle {
			l.begin(c, j)
			return
		}
	}
	if t.open >= t.maxConns && len(t.idle) > 0 {
		l.closeConn(t.idle[0])
	}
	l.dialOrQueue(t, j)
}

// dialOrQueue dials j a new connection to t while t's cap allows, or
// queues it until one frees.
func (l *evloop) dialOrQueue(t *ltarget, j ljob) {
	if t.open < t.maxConns {
		l.dial(t, j)
		return
	}
	l.enqueue(t, j)
}

// finish closes what is left and hands the last rows over.
func (l *evloop) finish() {
	for _, c := range l.conns {
		if c.fd >= 0 {
			l.closeConn(c)
		}
	}
	if l.ws != nil {
		l.ws.finish()
	}
	l.p.Close()
	l.rx.Stop()
	l.open.finish()
	l.storeGauges(l.now, 0, true)
	l.sink.Flush()
}

// wsPart is the loop's WebSocket part, nil without one.
func (l *evloop) wsPart() *wsLoop { return l.ws }
