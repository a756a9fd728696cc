package exec

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/tressi/tressi/compile"
	"github.com/tressi/tressi/plan"
	"github.com/tressi/tressi/results"
	"github.com/tressi/tressi/ws"
)

// wsLoop is a loop's WebSocket part: the sessions it runs on raw
// non-blocking sockets in the host loop's epoll set, on the host's
// goroutine: ws is the codec (it frames bytes), the part moves them and
// keeps the sessions' timers.
// A session costs its wsSession (a few hundred bytes) and its socket: read
// bytes land in one buffer per loop, and only a message split across reads
// is copied into the session's own.
type wsLoop struct {
	host  *evloop // the loop it runs in
	ex    *executor
	sink  *rowSink // the host's
	vals  compile.Values
	stats *wsStats
	progs []*wsProgram
	p     *poller // the host's; sessions' ids carry wsBit there
	now   int64

	sess    []*wsSession // by id, the epoll data of its socket
	free    []int32
	timers  wsTimers
	active  int
	open    int
	rbuf    []byte
	cipher  []byte // a TLS session's bytes as read, before its transport takes them
	scratch []byte
	frame   []byte    // a frame being built (or an HTTP step's request)
	enc     h1Encoder // renders the requests of HTTP steps before a connect
	rng     *rand.ChaCha8
	targets []*wsTarget
	marks   bool             // some step marks its frames: scan incoming frames for marks
	tag     uint32           // this run's mark tag
	due     []timed[wsTimer] // the timers being fired
	block   []wsSession      // sessions allocated and not used yet
	halt    wsHalt           // whether sending stops, as of the last wake-up
	touched uintptr          // what touch read (kept, so the reads are not dropped)

	// The loop sleeps through replies between bursts, as the HTTP loop's
	// open model does (runOpen): rxs reads them with the kernel's receive
	// stamps, and rx is when the bytes being handled arrived (the clock,
	// without a stamp). outs counts sessions waiting to write and
	// handshaking those whose TLS handshake runs: the loop does not sleep
	// through their events. full: the last wait returned as many events as
	// it could, so more are ready.
	rxs         *rxStamps // the host's
	rx          int64
	outs        int
	handshaking int
	full        bool

	queued    int  // sessions waiting for a connection (wsadmit_linux.go)
	refilling bool // refill is running
	cutting   bool // sending stopped, and pausing sessions were woken to say so
}

// wsTarget is a target's address and source addresses.
type wsTarget struct {
	dialTarget
	host string
	// maxConns is this loop's share of the target's connections; live
	// counts its sessions holding one, queue those waiting for one.
	maxConns, live int
	queue          fifo[wsQueued]
}

const (
	wsDialing     = iota
	wsHandshaking // TLS (wss://): the transport's handshake runs
	wsHTTPWait    // before the connect: between HTTP steps (wsprelude_linux.go)
	wsHTTPBusy    // before the connect: an HTTP step's job is the loop's
	wsUpgrading
	wsOpen
	wsClosing // our close frame sent, awaiting the server's
	wsDone
)

// wsSession is one WebSocket session: its connection and its place in the
// program.
//
// Its fields are laid out by use: the first ones (through r's) are read for
// every frame sent or received, the rest only while the session opens and
// closes. With many sessions each sending seldom (100 sessions at 20k
// frames/s: each one every 5 ms) a session is cold in the cache when its
// turn comes, so what a frame needs should sit on as few cache lines as
// possible (see touch).
type wsSession struct {
	state   uint8
	wantOut bool // EPOLLOUT is in the interest set (bytes wait for the socket)
	blocked bool // a wait = true await is outstanding
	closing bool // the close step is outstanding
	cut     bool // sending stopped for it: its rest was recorded as not sent
	failed  bool // some row was not ok
	// dispatching: httpNext is handing its HTTP step's job to the loop
	// (wsprelude_linux.go).
	dispatching bool
	id          int32
	fd          int
	k           uint64
	prog        *wsProgram
	tr          transport // wss://: TLS between the socket and the frames; nil for ws://

	// The program cursor: step i, repeat j; inside a for_each at i,
	// iteration fe, nested step fi, repeat fj (fe < 0: not inside).
	i, j, fe, fi, fj int
	ready            int64 // when the next step became ready: its rows' scheduled instant
	wakeAt           int64 // the next step waits until then (think, hold); -1: now
	timerAt          int64 // the instant of its entry in the timer heap; -1: none
	deadline         int64 // it sends nothing after it (its user's stop plus the grace)
	lastAnswer       int64 // when the last await was settled
	frames           uint32
	awaits           []wsPending // outstanding, in the order they were sent; on awaitBuf while one is
	out              []byte      // bytes the socket did not take yet
	captured         [][]byte    // what its steps captured, by capture index (every send's values)
	awaitBuf         [1]wsPending
	r                ws.Reader

	t       *wsTarget
	user    int32 // the closed-model user running it; -1 in the open model
	closeEP uint16
	key     [ws.KeyLen]byte
	head    []byte // the upgrade response while it arrives
	start   int64
	items   [][]byte
	have    []bool
	// dialAt is when the dial began; connect how long it took to open the
	// connection (TCP, and TLS for wss://): the connect row's connect_ns.
	dialAt, connect int64
	dialEnd         int64 // the connect timeout's instant, while dialing
	connSched       int64
	connSent        int64
	closeSched      int64
	closeSent       int64
	_               [8]byte // to a whole number of cache lines: see sessionBlock
}

// wsPending is an outstanding await (or the close handshake).
type wsPending struct {
	st       *wsStep
	sched    int64
	sent     int64
	deadline int64
	out      int64
	pause    int64 // think after the answer, when blocking
	block    bool
	want     [][]byte
	each     int // for_each iteration it was sent in (-1: none)
}

// newWSLoop is loop i's (of n) WebSocket part, in host: its share of each
// target's connections, its own targets (their source-address cursor is
// the loop's to move), and the host's poller, receive stamps and sink.
func (ex *executor) newWSLoop(host *evloop, progs []*wsProgram, i, n int) (*wsLoop, error) {
	targets, err := wsTargets(ex)
	if err != nil {
		return nil, err
	}
	for ti, t := range targets {
		c := ex.s.Targets[ti].Connections
		share := c / n
		if i < c%n {
			share++
		}
		t.maxConns = max(share, 1)
	}
	marks := false
	for _, p := range progs {
		if p != nil && p.marked() {
			marks = true
		}
	}
	l := &wsLoop{host: host, ex: ex, sink: &host.sink, stats: newWSStats(), progs: progs, p: host.p, rxs: &host.rx,
		rbuf: make([]byte, 64<<10), targets: targets, marks: marks, tag: ex.runTag,
		rng: rand.NewChaCha8([32]byte{byte(i), byte(ex.s.Seed), byte(ex.s.Seed >> 8), 0x77, 0x73})}
	l.vals.Seed = ex.s.Seed
	l.enc.vals.Seed = ex.s.Seed
	return l, nil
}

func (p *wsProgram) marked() bool {
	var walk func([]wsStep) bool
	walk = func(steps []wsStep) bool {
		for i := range steps {
			if w := steps[i].spec.WebSocket; w != nil && w.Marked || walk(steps[i].each) {
				return true
			}
		}
		return false
	}
	return walk(p.steps)
}

func wsTargets(ex *executor) ([]*wsTarget, error) {
	var out []*wsTarget
	for ti := range ex.s.Targets {
		t := &ex.s.Targets[ti]
		a, err := net.ResolveTCPAddr("tcp", t.Addr)
		if err != nil {
			return nil, fmt.Errorf("target %q: %w", t.Name, err)
		}
		d, err := ex.dialTargetFor(t, a, true)
		if err != nil {
			return nil, err
		}
		out = append(out, &wsTarget{dialTarget: d, host: t.Host})
	}
	return out, nil
}

// The host loop drives its WebSocket part (loop_linux.go, loopopen_linux.go,
// loopclosed_linux.go): timers fire in the open model's bursts, at most
// burstQuantum apart, with the slots; a send due meanwhile goes out with
// the next burst, a little late (the lateness is its send lag), and the
// loop wakes once per quantum, not once per frame.

// wsHalt is whether the run stopped sending (an interrupt, an early exit)
// or passed its schedule's end, looked at once per wake-up rather than
// once per frame: the first is a channel, the second an atomic.
type wsHalt struct{ stopping, pastEnd bool }

func (h *wsHalt) look(ex *executor) { h.stopping, h.pastEnd = ex.stopping(), ex.pastEnd() }

// begin starts a round of the host's: the clock, and whether sending
// stops.
func (l *wsLoop) begin(now int64) {
	l.now = now
	l.halt.look(l.ex)
}

// slot starts slot k's session of entry e, due at due, or records it not
// sent once the run stops.
func (l *wsLoop) slot(k uint64, e int, due int64, stopping bool) {
	if stopping || l.progs[e] == nil {
		l.notSentSession(k, e, due)
		return
	}
	l.admit(k, l.progs[e], due, -1)
}

// expire ends the waits for a connection that are over.
func (l *wsLoop) expire() {
	if l.queued > 0 {
		l.expireQueued()
	}
}

// idle: no session runs or waits for a connection.
func (l *wsLoop) idle() bool { return l.active == 0 && l.queued == 0 }

// nextDue is the earliest instant a timer waits for, -1 for none.
func (l *wsLoop) nextDue() int64 {
	if l.timers.len() > 0 {
		return l.timers.top()
	}
	return -1
}

// nextWake is the earliest instant the part must wake for: its timers'
// burst (burst.wake of nextDue, by the host) or a queued session's
// expiry, -1 for none.
func (l *wsLoop) nextWake(burst int64) int64 {
	wake := burst
	if d := l.nextQueueDeadline(); d >= 0 && (wake < 0 || d < wake) {
		wake = d
	}
	return wake
}

// waitFor bounds the host's wait: replies, pings and closes are read at
// least every scanEvery while sessions run.
func (l *wsLoop) waitFor(timeout int64) int64 {
	if l.active > 0 {
		return min(timeout, scanEvery)
	}
	return timeout
}

// sleepable says whether the host may sleep through its sockets: not
// while a session waits to write or handshakes, nor when the last wait
// returned as many events as it could (more are ready).
func (l *wsLoop) sleepable() bool { return l.outs == 0 && l.handshaking == 0 && !l.full }

// woke takes in a wait's events before the host handles them: the
// sessions among them are touched together (see touch), so their cache
// misses overlap.
func (l *wsLoop) woke(now int64, evs []unix.EpollEvent, full bool) {
	l.full = full
	l.now = now
	l.halt.look(l.ex)
	for i := range evs {
		if id := evs[i].Fd; id >= 0 && id&wsBit != 0 && int(id&^wsBit) < len(l.sess) {
			l.touched += l.sess[id&^wsBit].touch()
		}
	}
}

// eventID handles the readiness of session id's socket.
func (l *wsLoop) eventID(id int32, ev uint32) {
	if int(id) >= len(l.sess) {
		return
	}
	if s := l.sess[id]; s != nil && s.state != wsDone {
		l.event(s, ev)
	}
}

// after follows a round of events: a stop cuts the pausing sessions, an
// abort every session; the open-connection gauge is sampled.
func (l *wsLoop) after() {
	l.cutAll()
	if l.ex.aborted.Load() {
		l.abortAll()
	}
	l.stats.noteOpen(l.now, l.open)
}

// startSession dials slot k's session.
func (l *wsLoop) startSession(k uint64, p *wsProgram, due int64, user int32) {
	s := l.newSession()
	s.k, s.prog, s.t, s.start = k, p, l.targets[p.target], due
	s.user, s.deadline = user, l.userDeadline(user)
	for len(s.captured) < p.captures {
		s.captured = append(s.captured, nil)
		s.have = append(s.have, false)
	}
	for i := range s.have {
		s.captured[i], s.have[i] = s.captured[i][:0], false
	}
	s.connSched, s.ready = due, due
	l.stats.sessionsStarted++
	l.active++
	s.t.live++
	if p.connect > 0 {
		l.httpNext(s) // HTTP steps first (wsprelude_linux.go)
		return
	}
	l.dialWS(s)
}

// dialWS opens the session's WebSocket connection; the upgrade follows.
func (l *wsLoop) dialWS(s *wsSession) {
	switch err := l.dial(s, s.t); {
	case err == errNoRoom:
		l.connectFailed(s, s.prog.connectStep(), results.LocalResources)
	case err != nil:
		l.connectError(s, err)
	}
}

// errNoRoom: the epoll set took no more sockets.
var errNoRoom = errors.New("the epoll set is full")

// dial opens a non-blocking connection to t for the session: its socket
// (bound to t's next source address), its transport for TLS, its place in
// the epoll set and its connect timer. An error leaves nothing open.
func (l *wsLoop) dial(s *wsSession, t *wsTarget) error {
	fd, err := t.socket(l.rxs.on)
	s.connSent = l.ex.clock.now()
	s.dialAt = s.connSent
	s.state = wsDialing
	if err != nil {
		return &dialError{err}
	}
	s.fd = fd
	if t.transport != nil {
		id := s.id
		if s.tr, err = t.transport(func() { l.p.wake(id | wsBit) }); err != nil {
			closeFD(fd)
			s.fd = -1
			return &dialError{err}
		}
	}
	if err := l.p.add(fd, s.id|wsBit, true); err != nil {
		l.dropTransport(s)
		closeFD(fd)
		s.fd = -1
		return errNoRoom
	}
	s.wantOut = true
	l.outs++
	l.open++
	s.dialEnd = s.connSent + t.connect
	l.setTimer(s, s.dialEnd)
	return nil
}

func (l *wsLoop) newSession() *wsSession {
	var s *wsSession
	if n := len(l.free); n > 0 {
		s = l.sess[l.free[n-1]]
		l.free = l.free[:n-1]
		id, r, captured, have, awaits := s.id, s.r, s.captured, s.have, s.awaits
		*s = wsSession{id: id, r: r, captured: captured, have: have, awaits: awaits[:0]}
		s.r.Reset()
		s.r.Release()
	} else {
		if len(l.block) == 0 {
			l.block = make([]wsSession, sessionBlock)
		}
		s = &l.block[0]
		l.block = l.block[1:]
		s.id = int32(len(l.sess))
		s.awaits = s.awaitBuf[:0]
		l.sess = append(l.sess, s)
	}
	s.fd, s.fe, s.timerAt, s.wakeAt = -1, -1, -1, -1
	return s
}

// sessionBlock is how many sessions are allocated at once: 64 of them make
// one large allocation (over 32 KiB), which starts on a page, so every
// session starts on a cache line (768 bytes each) next to the others.
const sessionBlock = 64

// A session is a whole number of cache lines, or the sessions after the
// first of a block would not start on one: this fails to compile if not.
var _ [0]struct{} = [unsafe.Sizeof(wsSession{}) % 64]struct{}{}

// touch reads a word of each cache line a frame of s uses, before a batch
// of sessions is handled: after a send period the session is cold, and
// loads issued together wait for memory together, where sessions handled
// one after another, each behind its system calls, would wait once per
// line each. One word per line of the per-frame fields, for a session
// that starts on a line (see sessionBlock).
func (s *wsSession) touch() uintptr {
	return uintptr(s.state) + uintptr(s.j) + uintptr(s.lastAnswer) + uintptr(len(s.captured)) +
		uintptr(s.awaitBuf[0].deadline) + uintptr(s.awaitBuf[0].each) + s.r.Touch()
}

// event handles one socket's readiness.
func (l *wsLoop) event(s *wsSession, ev uint32) {
	switch s.state {
	case wsDialing:
		if ev&(unix.EPOLLOUT|unix.EPOLLERR|unix.EPOLLHUP) == 0 {
			return
		}
		if err := connectResult(s.fd); err != nil {
			l.connectError(s, &dialError{err})
			return
		}
		l.now = l.ex.clock.now()
		if s.tr != nil && !s.tr.Ready() {
			s.state = wsHandshaking
			l.handshaking++
			l.pump(s)
			return
		}
		s.connect = max(l.now-s.dialAt, 1)
		l.upgrade(s)
		return
	case wsHandshaking:
		if ev&(unix.EPOLLIN|unix.EPOLLRDHUP|unix.EPOLLHUP|unix.EPOLLERR) != 0 {
			l.read(s)
			if s.state != wsHandshaking {
				return
			}
		}
		l.pump(s)
		return
	}
	if ev&(unix.EPOLLOUT|unix.EPOLLERR) != 0 && s.wantOut {
		l.flushOut(s)
		if s.state == wsDone {
			return
		}
	}
	if ev&(unix.EPOLLIN|unix.EPOLLRDHUP|unix.EPOLLHUP|unix.EPOLLERR) != 0 {
		l.read(s)
	}
}

// upgrade sends the HTTP upgrade request of the connect step.
func (l *wsLoop) upgrade(s *wsSession) {
	st := s.prog.connectStep()
	var nonce [16]byte
	for i := range nonce {
		nonce[i] = byte(l.rng.Uint64())
	}
	s.key = ws.NewKey(nonce)
	vals := l.values(s, nil, -1)
	l.frame = l.frame[:0]
	l.frame = append(l.frame, "GET "...)
	l.frame = st.req.spec.URI.Append(l.frame, vals)
	l.frame = append(l.frame, " HTTP/1.1\r\nHost: "...)
	l.frame = append(l.frame, s.t.host...)
	l.frame = append(l.frame, "\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: "...)
	l.frame = append(l.frame, s.key[:]...)
	l.frame = append(l.frame, "\r\n"...)
	if p := st.spec.WebSocket.Subprotocols; len(p) > 0 {
		l.frame = append(l.frame, "Sec-WebSocket-Protocol: "...)
		for i, x := range p {
			if i > 0 {
				l.frame = append(l.frame, ", "...)
			}
			l.frame = append(l.frame, x...)
		}
		l.frame = append(l.frame, "\r\n"...)
	}
	for _, h := range st.req.spec.Headers {
		l.frame = append(l.frame, h.Name...)
		l.frame = append(l.frame, ": "...)
		l.frame = h.Value.Append(l.frame, vals)
		l.frame = append(l.frame, "\r\n"...)
	}
	l.frame = append(l.frame, "\r\n"...)
	s.state = wsUpgrading
	s.connSent = l.now
	l.setOut(s, false)
	l.write(s, l.frame)
	l.setTimer(s, s.upgradeEnd())
}

// upgradeEnd is when the upgrade's answer is late: the connect step's
// timeout, counted from the session's due instant.
func (s *wsSession) upgradeEnd() int64 { return s.connSched + int64(s.prog.connectStep().req.timeout) }

// values are what a send's holes are filled from.
func (l *wsLoop) values(s *wsSession, mark []byte, each int) *compile.Values {
	v := &l.vals
	v.Slot, v.Row, v.Captured, v.Mark = s.k, l.ex.s.Row(s.prog.entry, s.k), s.captured, mark
	v.Each, v.EachIndex = nil, 0
	if each >= 0 && each < len(s.items) {
		v.Each, v.EachIndex = s.items[each], each
	}
	return v
}

// write sends b now, keeping what the socket does not take; a wss://
// session's transport encrypts it first.
func (l *wsLoop) write(s *wsSession, b []byte) {
	if s.fd < 0 || s.state == wsDone {
		return
	}
	if s.tr != nil {
		if _, err := s.tr.Write(b); err != nil {
			l.connLostErr(s, err)
			return
		}
		l.flushTransport(s)
		return
	}
	if len(s.out) > 0 {
		s.out = append(s.out, b...)
		return
	}
	n, errno := rawSend(s.fd, b)
	switch {
	case errno == unix.EAGAIN, errno == unix.EINTR:
		n = 0
	case errno != 0:
		l.connLost(s, results.Reset)
		return
	}
	if n < len(b) {
		s.out = append(s.out[:0], b[n:]...)
		l.setOut(s, true)
	}
}

// flushOut writes what the socket did not take before.
func (l *wsLoop) flushOut(s *wsSession) {
	if s.tr != nil {
		l.flushTransport(s)
		return
	}
	n, errno := rawSend(s.fd, s.out)
	switch {
	case errno == unix.EAGAIN, errno == unix.EINTR:
		return
	case errno != 0:
		l.connLost(s, results.Reset)
		return
	}
	s.out = s.out[n:]
	if len(s.out) == 0 {
		s.out = nil
		l.setOut(s, false)
	}
}

// setOut switches EPOLLOUT interest on or off.
func (l *wsLoop) setOut(s *wsSession, out bool) {
	if out == s.wantOut || s.fd < 0 {
		return
	}
	s.wantOut = out
	if out {
		l.outs++
	} else {
		l.outs--
	}
	_ = l.p.modify(s.fd, s.id|wsBit, out)
}

// read drains the socket, handing what came to the session (through its
// transport for wss://).
func (l *wsLoop) read(s *wsSession) {
	if s.tr != nil {
		l.readTLS(s)
		return
	}
	for s.state != wsDone {
		n, at, errno := l.rxs.read(s.fd, l.rbuf)
		switch {
		case errno == unix.EAGAIN:
			return
		case errno == unix.EINTR:
			continue
		case errno != 0 || n == 0:
			l.rx = l.now
			l.connLost(s, lostKind(errno))
			return
		}
		l.arrived(at)
		if !l.received(s, l.rbuf[:n]) || n < len(l.rbuf) {
			return
		}
	}
}

// arrived sets rx, when the bytes about to be handled arrived: at, the
// kernel's stamp, or the clock without one. A stamp from before the loop
// last read the clock (the usual case: the loop slept through the
// replies) needs no new reading.
func (l *wsLoop) arrived(at int64) {
	if at >= 0 && at <= l.now {
		l.rx = at
		return
	}
	l.now = l.ex.clock.now()
	l.rx = l.now
	if at >= 0 && at < l.now {
		l.rx = at
	}
}

// lostKind is the error of a connection whose read ended with errno (0:
// the server closed it).
func lostKind(errno syscall.Errno) results.ErrorKind {
	if errno != 0 && errno != unix.ECONNRESET {
		return results.Reset
	}
	return results.WSClosed
}

// received handles bytes the server sent: the upgrade's answer while it
// arrives, then frames. False once the session ended.
func (l *wsLoop) received(s *wsSession, b []byte) bool {
	if s.state == wsUpgrading {
		s.head = append(s.head, b...)
		used, resp, err := ws.CheckResponse(s.head, s.key, s.prog.connectStep().spec.WebSocket.Subprotocols)
		if used == 0 && err == nil {
			return true
		}
		st := s.prog.connectStep()
		if err != nil {
			s.failed = true
			row := wsRow(s.k, st.ep, s.connSched, s.connSent, max(l.rx, s.connSent), uint16(resp.Status), results.WSProtocol, 0, int64(len(s.head)))
			row.Connect = s.connect
			if l.sink.wantSample(&row) {
				l.sink.putSampleErr(&row, st.req, nil, s.head[:min(len(s.head), l.ex.maxSample)], int64(len(s.head)), err)
			}
			l.sink.append(row)
			l.sink.stats.done.Add(1)
			l.sink.stats.failed.Add(1)
			l.restRows(s, results.WSClosed)
			l.endSession(s)
			return false
		}
		rest := append([]byte(nil), s.head[used:]...)
		s.head = nil
		l.connected(s, st, int64(used))
		b = rest
	}
	return l.frames(s, b)
}

// connected records the connect row and starts the program.
func (l *wsLoop) connected(s *wsSession, st *wsStep, in int64) {
	s.state = wsOpen
	l.stats.connected++
	done := max(l.rx, s.connSent)
	l.stats.connect.RecordValue(max(done-s.connSched, 1))
	row := wsRow(s.k, st.ep, s.connSched, s.connSent, done, 101, results.None, 0, in)
	row.Connect = s.connect
	l.keep(s, row, st)
	s.j = 1
	s.wakeAt = done + int64(l.ex.s.Pause(st.spec, st.id, s.k, 0))
	s.ready = s.wakeAt
	l.step(s)
}

func (l *wsLoop) keep(s *wsSession, row results.Row, st *wsStep) {
	l.keepFrame(s, row, st, nil)
}

// keepFrame records row; frame is the frame that answered it (nil: none).
// The first row of each (step, status, error) is sampled with that frame,
// so a report shows what the server said when it refused (Tinode's ctrl
// text: "permission denied", "must attach first").
func (l *wsLoop) keepFrame(s *wsSession, row results.Row, st *wsStep, frame []byte) {
	if row.Error.NotRequest() { // no request: out of the live figures
		l.sink.keep(row, l.now)
		return
	}
	l.sink.stats.done.Add(1)
	if row.Error != results.None || (st.req != nil && !results.ExpectsStatus(st.req.spec.Expect, int(row.Status))) {
		s.failed = true
		l.sink.stats.failed.Add(1)
	}
	if st.req != nil && l.sink.wantSample(&row) {
		l.sink.putSample(&row, st.req, nil, frame, int64(len(frame)))
	}
	l.sink.keep(row, l.now)
}

// frames feeds b to the session's reader; false once the session ended.
func (l *wsLoop) frames(s *wsSession, b []byte) bool {
	for len(b) > 0 || s.r.Err() == nil {
		n, ready, err := s.r.Feed(b)
		b = b[n:]
		if err != nil {
			code := ws.CloseProtocolError
			if errors.Is(err, ws.ErrTooBig) {
				code = ws.CloseTooBig
			}
			l.sendClose(s, code)
			l.connLost(s, results.WSProtocol)
			return false
		}
		if !ready {
			return true
		}
		switch s.r.Op {
		case ws.OpPing:
			l.control(s, ws.OpPong, s.r.Payload())
		case ws.OpPong:
		case ws.OpClose:
			l.serverClosed(s)
			return false
		default:
			l.message(s, s.r.Payload())
			if s.state == wsDone {
				return false
			}
		}
	}
	return true
}

func (l *wsLoop) maskKey() [4]byte {
	v := l.rng.Uint64()
	return [4]byte{byte(v), byte(v >> 8), byte(v >> 16), byte(v >> 24)}
}

func (l *wsLoop) control(s *wsSession, op ws.Opcode, p []byte) {
	var buf [ws.MaxHeader + ws.MaxControlPayload]byte
	l.write(s, ws.AppendFrame(buf[:0], op, true, p, true, l.maskKey()))
}

func (l *wsLoop) sendClose(s *wsSession, code int) {
	var buf [ws.MaxHeader + ws.MaxControlPayload]byte
	l.write(s, ws.AppendClose(buf[:0], code, "", true, l.maskKey()))
}

// message matches a data frame against the outstanding awaits, in the
// order they were sent: the first that matches takes it.
func (l *wsLoop) message(s *wsSession, p []byte) {
	l.stats.received++
	if l.marks {
		findMarks(p, l.tag, func(sent int64, key uint64) {
			if key>>16 == s.k {
				return // its own message coming back
			}
			l.stats.delivery.RecordValue(min(max(l.rx-sent, 1), histogramMax))
			l.stats.deliveries[key]++
		})
	}
	for i := range s.awaits {
		a := &s.awaits[i]
		if a.st == nil || a.st.await == nil || !a.st.await.matches(p, a.want, l.scratch[:0]) {
			continue
		}
		status := a.st.await.statusOf(p)
		done := max(l.rx, a.sent)
		row := wsRow(s.k, a.st.ep, a.sched, a.sent, done, status, results.None, a.out, int64(len(p)))
		l.keepFrame(s, row, a.st, p)
		ok := results.ExpectsStatus(a.st.req.spec.Expect, int(status))
		for c := range a.st.capture {
			cp := &a.st.capture[c]
			if !ok {
				s.have[cp.index] = false
				continue
			}
			s.captured[cp.index], s.have[cp.index] = cp.extract(s.captured[cp.index][:0], p)
		}
		if !ok && a.st.exit {
			l.exitSession(s, i)
			return
		}
		l.answered(s, i, done)
		return
	}
	l.stats.unmatched++
	name := s.prog.name
	if st := l.current(s); st != nil {
		name = st.spec.Name
	}
	l.stats.unmatchedByStep[name]++
	if l.stats.unmatchedByStep[name] <= 3 {
		l.ex.rec.sample(results.Sample{Endpoint: name, Error: "unmatched", BodySize: clampU32(int64(len(p))),
			Body: append([]byte(nil), p[:min(len(p), l.ex.maxSample)]...)})
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
func (l *wsLoop) current(s *wsSession) *wsStep {
	if s.i >= len(s.prog.steps) {
		return nil
	}
	st := &s.prog.steps[s.i]
	if s.fe >= 0 && s.fi < len(st.each) {
		return &st.each[s.fi]
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
		if s.i >= len(s.prog.steps) {
			l.finishProgram(s)
			return
		}
		top := &s.prog.steps[s.i]
		if top.kind == plan.StepForEach {
			l.forEach(s, top)
			continue
		}
		if top.kind == plan.StepClose && len(s.awaits) > 0 {
			// The close handshake waits for the answers still awaited.
			l.armTimer(s)
			return
		}
		l.run1(s, top, &s.j, -1)
		if s.j >= top.repeat {
			s.i++
			s.j = 0
		}
	}
}

// forEach moves through a for_each's iterations.
func (l *wsLoop) forEach(s *wsSession, top *wsStep) {
	w := top.spec.WebSocket
	if s.fe < 0 {
		s.fe, s.fi, s.fj = 0, 0, 0
		s.items = s.items[:0]
		if w.Items >= 0 && w.Items < len(s.have) && s.have[w.Items] {
			items, _ := jsonArrayTexts(s.captured[w.Items], w.Max)
			s.items = items
		} else {
			// No array to go through: every scheduled row says why.
			l.rowsOf(s, top.each, int64(w.Max), results.CaptureFailed, s.ready)
			s.fe, s.i, s.j = -1, s.i+1, 0
			return
		}
	}
	if s.fe >= len(s.items) || s.fe >= w.Max {
		missing := int64(w.Max - min(len(s.items), w.Max))
		if s.fe < w.Max && missing > 0 {
			l.rowsOf(s, top.each, missing, results.NoItem, s.ready)
		}
		s.fe, s.i, s.j = -1, s.i+1, 0
		return
	}
	st := &top.each[s.fi]
	l.run1(s, st, &s.fj, s.fe)
	if s.fj >= st.repeat {
		s.fi, s.fj = s.fi+1, 0
		if s.fi >= len(top.each) {
			s.fi = 0
			s.fe++
		}
	}
}

// run1 runs repeat *j of st (inside for_each iteration each, or -1).
func (l *wsLoop) run1(s *wsSession, st *wsStep, j *int, each int) {
	switch st.kind {
	case plan.StepThink:
		*j = st.repeat
		s.wakeAt = l.now + int64(l.ex.s.Pause(st.spec, st.id, s.k, 0))
	case plan.StepHold:
		*j = st.repeat
		s.wakeAt = l.now + int64(st.spec.WebSocket.Hold)
	case plan.StepClose:
		*j = st.repeat
		l.now = l.ex.clock.now()
		s.closeSched, s.closeSent, s.closeEP = max(s.ready, s.lastAnswer), l.now, st.ep
		s.closing = true
		s.state = wsClosing
		l.sendClose(s, st.spec.WebSocket.CloseCode)
		l.stats.sent++
		s.awaits = append(s.awaits, wsPending{st: st, sched: s.closeSched, sent: l.now, deadline: l.now + int64(st.req.timeout), block: true})
		s.blocked = true
		l.armTimer(s)
	case plan.StepSend:
		l.send(s, st, *j, each)
		*j++
	default:
		*j = st.repeat
	}
}

// send sends one frame of st and registers its await.
func (l *wsLoop) send(s *wsSession, st *wsStep, j, each int) {
	pause := int64(l.ex.s.Pause(st.spec, st.id, s.k, j))
	for _, n := range st.needs {
		if n >= len(s.have) || !s.have[n] {
			l.keep(s, wsRow(s.k, st.ep, s.ready, -1, -1, 0, results.CaptureFailed, 0, 0), st)
			return
		}
	}
	l.now = l.ex.clock.now()
	var mark []byte
	w := st.spec.WebSocket
	if w.Marked {
		s.frames++
		mark = appendMark(l.scratch[:0], l.tag, l.now, s.k, s.frames)
		l.scratch = mark[:0]
		l.stats.marked++
	}
	vals := l.values(s, mark, each)
	body := st.req.spec.Body.Append(l.frame[:0], vals)
	if st.skip != nil && st.skip.Match(body) {
		// Not sent: a row of its own kind, and the session goes on as if
		// the frame had been answered at once.
		if w.Marked {
			l.stats.marked--
		}
		row := wsRow(s.k, st.ep, s.ready, -1, -1, 0, results.Skipped, 0, 0)
		l.sink.keep(row, l.now)
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
	if st.await == nil {
		l.keep(s, wsRow(s.k, st.ep, s.ready, l.now, l.now, 0, results.None, int64(len(frame)), 0), st)
		s.wakeAt = s.ready + pause
		return
	}
	p := wsPending{st: st, sched: s.ready, sent: l.now, deadline: l.now + st.await.timeout, out: int64(len(frame)),
		pause: pause, block: w.Wait, each: each}
	if n := len(s.awaits); n < cap(s.awaits) {
		p.want = s.awaits[:n+1][n].want[:0]
	}
	for i := range st.await.json {
		var buf []byte
		if i < len(p.want[:cap(p.want)]) {
			buf = p.want[:cap(p.want)][i][:0]
		}
		p.want = append(p.want, st.await.json[i].value.Append(buf, vals))
	}
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

// exitSession ends a session whose await i failed on an exit_if_failed
// step, as Gatling's exitHereIfFailed does: the rows it would still have
// recorded are skipped (neither requests nor errors), answers still
// awaited are ws_closed, and the connection closes with 1000.
func (l *wsLoop) exitSession(s *wsSession, i int) {
	for j := range s.awaits {
		if a := &s.awaits[j]; j != i && a.st != nil && a.st.kind != plan.StepClose {
			l.keep(s, wsRow(s.k, a.st.ep, a.sched, a.sent, -1, 0, results.WSClosed, a.out, 0), a.st)
		}
	}
	s.awaits = s.awaits[:0]
	s.blocked, s.wakeAt = false, -1
	l.restRows(s, results.Skipped)
	l.finishProgram(s)
}

// finishProgram closes the session once its awaits are settled.
func (l *wsLoop) finishProgram(s *wsSession) {
	if len(s.awaits) > 0 && !l.ex.aborted.Load() {
		s.i = len(s.prog.steps)
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
	code, _ := s.r.CloseCode()
	if s.closing {
		for i := range s.awaits {
			a := &s.awaits[i]
			if a.st.kind == plan.StepClose {
				l.keep(s, wsRow(s.k, a.st.ep, a.sched, a.sent, max(l.rx, a.sent), uint16(code), results.None, 2, int64(len(s.r.Payload())+2)), a.st)
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
	l.connLost(s, results.WSClosed)
}

// connLost ends a session whose connection is gone: outstanding awaits
// and the steps still to run each get their row.
func (l *wsLoop) connLost(s *wsSession, kind results.ErrorKind) {
	if s.state == wsDone {
		return
	}
	if s.state == wsDialing || s.state == wsHandshaking || s.state == wsUpgrading {
		l.connectFailed(s, s.prog.connectStep(), kind)
		return
	}
	if s.state == wsHTTPBusy {
		return // its HTTP step's job is the loop's: the job's end goes on
	}
	if l.ex.aborted.Load() {
		kind = results.Interrupted
	}
	for i := range s.awaits {
		if a := &s.awaits[i]; a.st != nil {
			l.keep(s, wsRow(s.k, a.st.ep, a.sched, a.sent, -1, 0, kind, a.out, 0), a.st)
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
func (l *wsLoop) connectFailed(s *wsSession, st *wsStep, kind results.ErrorKind) {
	if l.ex.aborted.Load() {
		kind = results.Interrupted
	}
	sent := s.connSent
	if s.state == wsDialing || s.state == wsHandshaking {
		sent = -1 // the upgrade never went out
	}
	l.keep(s, wsRow(s.k, st.ep, s.connSched, sent, -1, 0, kind, 0, 0), st)
	s.i, s.j = s.prog.connect, 1
	rest := results.WSClosed
	if kind == results.Interrupted {
		rest = results.NotSent
	}
	l.restRows(s, rest)
	l.endSession(s)
}

// restRows records every row the cursor has not reached yet.
func (l *wsLoop) restRows(s *wsSession, kind results.ErrorKind) {
	for s.i < len(s.prog.steps) {
		top := &s.prog.steps[s.i]
		if top.kind == plan.StepForEach {
			iters := int64(top.spec.WebSocket.Max)
			if s.fe < 0 {
				l.rowsOf(s, top.each, iters, kind, s.ready)
			} else {
				// The rest of this iteration, then the iterations after it;
				// those beyond the captured array do not exist.
				for fi := s.fi; fi < len(top.each); fi++ {
					st := &top.each[fi]
					if !st.kind.Rows() {
						continue
					}
					reps := st.repeat
					if fi == s.fi {
						reps -= s.fj
					}
					for range reps {
						l.keep(s, wsRow(s.k, st.ep, s.ready, -1, -1, 0, kind, 0, 0), st)
					}
				}
				left := iters - int64(s.fe) - 1
				exist := min(max(int64(len(s.items))-int64(s.fe)-1, 0), left)
				l.rowsOf(s, top.each, exist, kind, s.ready)
				l.rowsOf(s, top.each, left-exist, results.NoItem, s.ready)
			}
			s.fe = -1
		} else if top.kind.Rows() {
			for ; s.j < top.repeat; s.j++ {
				l.keep(s, wsRow(s.k, top.ep, s.ready, -1, -1, 0, kind, 0, 0), top)
			}
		}
		s.i, s.j = s.i+1, 0
	}
}

// rowsOf records times × the rows of steps.
func (l *wsLoop) rowsOf(s *wsSession, steps []wsStep, times int64, kind results.ErrorKind, sched int64) {
	for range times {
		for i := range steps {
			st := &steps[i]
			if !st.kind.Rows() {
				continue
			}
			for range st.repeat {
				row := wsRow(s.k, st.ep, sched, -1, -1, 0, kind, 0, 0)
				if !kind.NotRequest() { // rows of no request stay out of the live figures
					l.sink.stats.done.Add(1)
					s.failed = true
					l.sink.stats.failed.Add(1)
				}
				l.sink.keep(row, l.now)
			}
		}
	}
}

// notSentSession records every row of a session that never started.
func (l *wsLoop) notSentSession(k uint64, e int, due int64) {
	p := l.progs[e]
	if p == nil {
		l.sink.notSent(k, e, due)
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
			_, _ = rawSend(s.fd, s.out) // the close frame, best effort
		}
		if s.tr != nil && s.state != wsDialing && s.state != wsHandshaking {
			if b := s.tr.Pending(); len(b) > 0 {
				_, _ = rawSend(s.fd, b) // likewise
			}
		}
		l.dropTransport(s)
		closeFD(s.fd) // closing removes it from the epoll set
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
	l.stats.sessionDur.RecordValue(min(max(l.now-s.start, 1), histogramMax))
	s.out, s.head, s.items = nil, nil, nil
	s.r.Release()
	l.active--
	l.free = append(l.free, s.id)
	s.t.live--
	l.userFree(s.user, l.now)
	l.refill(s.t)
}

// abortAll cuts every session after the grace: outstanding awaits are
// interrupted, the rest not sent.
func (l *wsLoop) abortAll() {
	for _, s := range l.sess {
		if s.state != wsDone && s.prog != nil {
			l.connLost(s, results.Interrupted)
		}
	}
}

func (l *wsLoop) finish() {
	for _, s := range l.sess {
		l.dropTransport(s)
	}
}
