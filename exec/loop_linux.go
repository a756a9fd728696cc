package exec

import (
	"fmt"
	"net"
	"sync/atomic"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/tressi/tressi/compile"
	"github.com/tressi/tressi/h1"
)

// evloop is the event-loop engine: one goroutine drives many connections
// on raw non-blocking sockets through its own epoll set, the way wrk does.
// Against the fasthttp engine on one core it saves, per request, a
// goroutine park and wake-up, the read that finds no response yet (the
// runtime reads right after writing; epoll here reports the socket
// readable first), the runtime's syscall bookkeeping and fasthttp's
// parsing; and it owns the open model's clock, so a slot goes out at its
// due instant from the same loop that reads responses, with no pacer, ring
// or timer per wake-up.
//
// Its reads and writes are raw syscalls on non-blocking sockets: the
// runtime's bookkeeping for a call that cannot block is pure cost. A loop
// holds its P: there is one loop fewer than Ps (see chooseEngine), so the
// recorder, the monitor and timers run on the spare one, and the loop
// never yields (a yield wakes an idle P's thread: a futex and two context
// switches each time on one core).
type evloop struct {
	ex   *executor
	w    *worker // row buffer, live figures, samples
	epfd int
	evs  []unix.EpollEvent
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

	// Open model: the slots this loop sends, read from its own pass over
	// the schedule (slot k is the shard's if k mod count == idx; of those,
	// every nth is this loop's).
	src        compile.SlotSource
	chunk      []compile.Slot
	ci, cn     int
	k          uint64 // schedule position of chunk[ci]
	shardIdx   uint64
	shardCount uint64
	pos        uint64 // position among the shard's slots
	loopIdx    uint64
	loops      uint64
	nextK      uint64
	nextSlot   compile.Slot
	hasNext    bool
	srcDone    bool

	// Closed model.
	users   []compile.UserSpan
	wakes   wakeHeap
	session *atomic.Uint64
	active  int // users not finished

	nextScan int64
	// stamps: the open model reads responses with the kernel's receive
	// timestamps (SO_TIMESTAMPING), so it can sleep through their arrival
	// and read them in one go at the next burst without adding that wait
	// to their latency. wallBase converts those wall-clock stamps to run
	// time; outs counts connections waiting to write, which cannot wait.
	stamps    bool
	wallBase  int64
	outs      int
	partials  int // connections with part of a response: a large body is read as it comes
	msg       unix.Msghdr
	iov       unix.Iovec
	oob       [64]byte
	keeper    int // a socket that keeps the kernel stamping from before the first dial
	refilling bool
	wire      wireWriter // renders requests with holes
}

// ltarget is one target's share of connections in a loop.
type ltarget struct {
	sa       unix.Sockaddr
	family   int
	maxConns int
	open     int
	idle     []*lconn
	queue    jobQueue
	connect  int64 // connect timeout, ns
	maxBody  int64
}

// ljob is one request waiting for, or carried by, a connection.
type ljob struct {
	k     uint64
	entry int32
	user  int32 // closed model: the user sending it; -1 for an open slot
	pr    *preparedRequest
	sched int64 // the instant latency counts from
	ready int64 // when it asked for a connection: its timeout counts from here
}

const (
	connIdle = iota
	connDialing
	connBusy
)

// lconn is one connection and the request it carries.
type lconn struct {
	id       int32
	fd       int
	t        *ltarget
	state    uint8
	wantOut  bool  // EPOLLOUT is in the interest set
	partial  bool  // part of the response arrived, not all
	rxAt     int64 // when the bytes last read reached the host
	job      ljob
	deadline int64 // of the request (or the dial, while dialing)
	dialEnd  int64 // the connect timeout's instant, while dialing
	sent     int64
	out, in  int64
	pending  []byte // request bytes not yet written
	wbuf     []byte // a rendered request with holes
	rbuf     []byte
	rlen     int
	p        h1.Parser
	sampling bool
	head     []byte // the sampled response's head
	// seenEP/seenStatus: the last kind the sample check found already
	// sampled, so the common case skips the map.
	seenEP, seenStatus uint16
}

// Sizes: a connection's read buffer starts small (thousands of connections
// answering a few hundred bytes need no more) and doubles, up to maxReadBuf,
// when a response head does not fit it or a read fills it.
const (
	readBuf     = 4 << 10
	maxReadBuf  = h1.MaxHead + 4<<10
	maxEvents   = 256
	scanEvery   = int64(time.Millisecond) // timeout checks
	longestWait = 50 * time.Millisecond   // bounded so stops and aborts are seen
)

// timeoutError is a request or dial that outlived its timeout.
type timeoutError struct{}

func (timeoutError) Error() string { return "timeout" }
func (timeoutError) Timeout() bool { return true }

func loopSupported() bool { return true }

// loopQuantum is the shortest time between two bursts of the open model:
// slots due meanwhile go out together, a little late. Each burst costs a
// wake-up here and in the server (on a VM, ~20 µs of CPU each); 500 µs
// keeps the send lag p99 near half a millisecond.
const loopQuantum = int64(500 * time.Microsecond)

// newLoops builds n loops over the executor's targets, at addrs,
// splitting each target's connections between them.
func (ex *executor) newLoops(n int, addrs []*net.TCPAddr) ([]*evloop, error) {
	loops := make([]*evloop, n)
	for i := range loops {
		epfd, err := unix.EpollCreate1(unix.EPOLL_CLOEXEC)
		if err != nil {
			for _, l := range loops[:i] {
				unix.Close(l.epfd)
				if l.stamps && l.keeper >= 0 {
					unix.Close(l.keeper)
				}
			}
			return nil, err
		}
		l := &evloop{ex: ex, w: ex.newWorker(), epfd: epfd, evs: make([]unix.EpollEvent, maxEvents)}
		for ti, t := range ex.s.Targets {
			c := max(t.Connections, 1)
			share := c / n
			if i < c%n {
				share++
			}
			connect := t.ConnectTimeout
			if connect <= 0 {
				connect = 2 * time.Second
			}
			// Each loop gets its own address: Connect writes into it.
			sa, family := sockaddr(addrs[ti])
			lt := &ltarget{sa: sa, family: family, maxConns: max(share, 1), connect: int64(connect),
				maxBody: int64(ex.maxBody)}
			l.targets = append(l.targets, lt)
		}
		loops[i] = l
	}
	return loops, nil
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

// startLoopsOpen runs the open model on n loops.
func (ex *executor) startLoopsOpen(loops []*evloop, slots func() compile.SlotSource) {
	for i, l := range loops {
		l.src = slots()
		l.stamps = true
		// The kernel turns stamping on lazily, after the first socket asks
		// for it: asking now, before the run, stamps the first responses.
		l.keeper = -1
		if fd, err := unix.Socket(unix.AF_INET, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, 0); err == nil {
			_ = unix.SetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_TIMESTAMPING,
				unix.SOF_TIMESTAMPING_RX_SOFTWARE|unix.SOF_TIMESTAMPING_SOFTWARE)
			l.keeper = fd
		}
		l.chunk = make([]compile.Slot, 4096)
		l.shardIdx, l.shardCount = uint64(ex.shard.Index), uint64(max(ex.shard.Count, 1))
		l.loopIdx, l.loops = uint64(i), uint64(len(loops))
		ex.wg.Go(l.runOpen)
	}
}

// startLoopsClosed runs the closed model's users of this shard on n loops.
func (ex *executor) startLoopsClosed(loops []*evloop, session *atomic.Uint64) {
	cnt := max(ex.shard.Count, 1)
	j := 0
	for u, span := range ex.s.Users {
		if u%cnt != ex.shard.Index {
			continue
		}
		l := loops[j%len(loops)]
		l.users = append(l.users, span)
		j++
	}
	for _, l := range loops {
		l.session = session
		ex.wg.Go(l.runClosed)
	}
}

// runOpen sends this loop's slots at their due instants, in bursts at
// most one quantum apart.
func (l *evloop) runOpen() {
	defer l.finish()
	l.advance()
	woke := int64(-1) << 62 // the intended instant of the last burst
	for {
		l.now = l.ex.clock.now()
		stopping := l.ex.stopping()
		if l.hasNext && (stopping || l.now >= max(l.nextSlot.Due(), woke+loopQuantum)) {
			// Quanta count from the intended bursts, not the actual ones,
			// so late wake-ups do not add up.
			woke = max(l.nextSlot.Due(), woke+loopQuantum)
			for l.hasNext && (stopping || l.nextSlot.Due() <= l.now) {
				e, due := l.nextSlot.Entry(), l.nextSlot.Due()
				if stopping {
					l.w.notSent(l.nextK, e, due)
				} else {
					l.dispatch(ljob{k: l.nextK, entry: int32(e), user: -1, pr: l.entryRequest(e), sched: due, ready: l.now})
				}
				l.advance()
			}
		}
		if !l.hasNext && l.busy == 0 && l.queued == 0 {
			return
		}
		var wake int64 = -1
		if l.hasNext {
			wake = max(l.nextSlot.Due(), woke+loopQuantum)
		}
		l.poll(wake)
	}
}

// advance moves to the next slot this loop owns.
func (l *evloop) advance() {
	for {
		if l.ci == l.cn {
			if l.srcDone {
				l.hasNext = false
				return
			}
			l.cn, l.ci = l.src.Next(l.chunk), 0
			if l.cn == 0 {
				l.srcDone, l.hasNext = true, false
				return
			}
		}
		s, k := l.chunk[l.ci], l.k
		l.ci++
		l.k++
		if k%l.shardCount != l.shardIdx {
			continue
		}
		mine := l.pos%l.loops == l.loopIdx
		l.pos++
		if mine {
			l.nextK, l.nextSlot, l.hasNext = k, s, true
			return
		}
	}
}

// runClosed runs this loop's users from their start to their stop.
func (l *evloop) runClosed() {
	defer l.finish()
	l.active = len(l.users)
	for u := range l.users {
		l.wakes.push(l.users[u].Start, int32(u))
	}
	for {
		l.now = l.ex.clock.now()
		for l.wakes.len() > 0 && (l.wakes.top() <= l.now || l.ex.stopping()) {
			_, u := l.wakes.pop()
			l.userNext(u)
		}
		if l.active == 0 && l.busy == 0 && l.queued == 0 {
			return
		}
		var wake int64 = -1
		if l.wakes.len() > 0 {
			wake = l.wakes.top()
		}
		l.poll(wake)
	}
}

// userNext starts user u's next request, or ends the user.
func (l *evloop) userNext(u int32) {
	ex := l.ex
	if ex.stopping() || l.now >= l.users[u].Stop {
		l.active--
		return
	}
	k, entry, ok := l.w.next(l.session)
	if !ok {
		// Every entry is at its max_rate: try again a little later.
		l.wakes.push(l.now+int64(time.Millisecond), u)
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

func (l *evloop) entryRequest(e int) *preparedRequest {
	return &l.ex.reqs[l.ex.s.Entries[e].Steps[0].Request]
}

// poll waits for socket events until wake (-1: no instant to keep), handles
// them, and checks timeouts and stops.
func (l *evloop) poll(wake int64) {
	ex := l.ex
	now := ex.clock.now()
	timeout := int64(longestWait)
	if wake >= 0 {
		timeout = min(timeout, wake-now)
	}
	if l.busy > 0 || l.queued > 0 {
		timeout = min(timeout, l.nextScan-now)
	}
	if len(l.w.rows) > 0 && now-l.w.first > flushAge/2 {
		l.w.flush() // a slow run still reaches the file every second
	}
	if l.stamps && timeout > 0 && l.outs == 0 && l.queued == 0 && l.partials == 0 {
		// Sleep through the responses instead of waking for each: they
		// carry the kernel's arrival time, and are read together below.
		l.sleep(timeout)
		timeout = 0
	}
	n := l.wait(max(timeout, 0))
	t := time.Now()
	l.now = int64(t.Sub(ex.clock.base))
	l.wallBase = t.UnixNano() - l.now
	for i := range n {
		ev := &l.evs[i]
		c := l.conns[ev.Fd]
		if c == nil || c.fd < 0 {
			continue
		}
		l.event(c, ev.Events)
	}
	if ex.aborted.Load() {
		l.abort()
	}
	if ex.stopping() {
		l.dropQueued()
	}
	if (l.busy > 0 || l.queued > 0) && l.now >= l.nextScan {
		l.scan()
	}
	l.free = append(l.free, l.closed...)
	l.closed = l.closed[:0]
}

// wait is epoll_pwait2: its timeout has ns resolution, where epoll_wait's
// counts whole milliseconds. It is a raw syscall even when it blocks: told
// of a blocking call, the runtime's monitor takes the P away after 20 µs
// and hands it to another thread, and the loop pays two context switches
// and a futex to get it back, about once per wait. There is always a spare
// P for the rest of the process (see chooseEngine); the monitor interrupts
// a wait longer than 10 ms with a signal, which is harmless (EINTR).
func (l *evloop) wait(timeout int64) int {
	ts := unix.NsecToTimespec(timeout)
	r, _, e := unix.RawSyscall6(unix.SYS_EPOLL_PWAIT2, uintptr(l.epfd), uintptr(unsafe.Pointer(&l.evs[0])),
		uintptr(len(l.evs)), uintptr(unsafe.Pointer(&ts)), 0, 0)
	if e != 0 {
		return 0 // EINTR
	}
	return int(r)
}

// event handles one socket's readiness.
func (l *evloop) event(c *lconn, ev uint32) {
	switch c.state {
	case connDialing:
		if ev&(unix.EPOLLOUT|unix.EPOLLERR|unix.EPOLLHUP) == 0 {
			return
		}
		errno, err := unix.GetsockoptInt(c.fd, unix.SOL_SOCKET, unix.SO_ERROR)
		if err == nil && errno != 0 {
			err = syscall.Errno(errno)
		}
		if err != nil {
			l.fail(c, &dialError{err})
			return
		}
		c.state = connBusy
		l.modify(c, false)
		l.write(c)
	case connBusy:
		if c.pending != nil && ev&(unix.EPOLLOUT|unix.EPOLLERR) != 0 {
			l.write(c)
			if c.state != connBusy || c.pending != nil {
				return
			}
		}
		if ev&(unix.EPOLLIN|unix.EPOLLRDHUP|unix.EPOLLHUP|unix.EPOLLERR) != 0 {
			l.read(c)
		}
	case connIdle:
		// An idle connection has nothing to say: the server closed it
		// (or sent bytes nobody asked for). Either way it is done.
		l.closeConn(c)
	}
}

// dispatch gives a job a connection: an idle one, a new one, or a place in
// the target's queue.
func (l *evloop) dispatch(j ljob) {
	t := l.targets[j.pr.spec.Target]
	if n := len(t.idle); n > 0 {
		c := t.idle[n-1]
		t.idle = t.idle[:n-1]
		l.begin(c, j)
		return
	}
	if t.open < t.maxConns {
		l.dial(t, j)
		return
	}
	t.queue.push(j)
	l.queued++
	l.armScan()
}

// armScan makes sure the timeout scan runs within scanEvery.
func (l *evloop) armScan() {
	if l.busy+l.queued == 1 {
		l.nextScan = l.now + scanEvery
	}
}

// dial opens a non-blocking connection for j.
func (l *evloop) dial(t *ltarget, j ljob) {
	if l.ex.aborted.Load() {
		l.finishJob(j, -1, 0, 0, &dialError{errAborted})
		return
	}
	fd, err := unix.Socket(t.family, unix.SOCK_STREAM|unix.SOCK_NONBLOCK|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		l.finishJob(j, -1, 0, 0, &dialError{err})
		return
	}
	_ = unix.SetsockoptInt(fd, unix.IPPROTO_TCP, unix.TCP_NODELAY, 1)
	if l.stamps {
		_ = unix.SetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_TIMESTAMPING,
			unix.SOF_TIMESTAMPING_RX_SOFTWARE|unix.SOF_TIMESTAMPING_SOFTWARE)
	}
	err = unix.Connect(fd, t.sa)
	if err != nil && err != unix.EINPROGRESS {
		unix.Close(fd)
		l.finishJob(j, -1, 0, 0, &dialError{err})
		return
	}
	c := l.newConn(fd, t)
	ev := unix.EpollEvent{Events: unix.EPOLLIN | unix.EPOLLOUT | unix.EPOLLRDHUP, Fd: c.id}
	if err := unix.EpollCtl(l.epfd, unix.EPOLL_CTL_ADD, fd, &ev); err != nil {
		l.releaseConn(c)
		l.finishJob(j, -1, 0, 0, &dialError{err})
		return
	}
	c.wantOut = true
	l.outs++
	t.open++
	c.state = connDialing
	c.job = j
	c.dialEnd = j.ready + t.connect
	c.deadline = j.ready + int64(j.pr.timeout)
	l.busy++
	l.armScan()
	l.prepare(c)
}

func (l *evloop) newConn(fd int, t *ltarget) *lconn {
	var c *lconn
	if n := len(l.free); n > 0 {
		c = l.conns[l.free[n-1]]
		l.free = l.free[:n-1]
	} else {
		c = &lconn{id: int32(len(l.conns)), rbuf: make([]byte, readBuf)}
		c.p.Head = l.headHook(c)
		l.conns = append(l.conns, c)
	}
	c.fd, c.t, c.rlen, c.wantOut = fd, t, 0, false
	return c
}

// begin starts j on the idle connection c.
func (l *evloop) begin(c *lconn, j ljob) {
	c.state = connBusy
	c.job = j
	c.deadline = j.ready + int64(j.pr.timeout)
	l.busy++
	l.armScan()
	l.prepare(c)
	l.write(c)
}

// prepare readies c's request bytes and response parser for its job.
func (l *evloop) prepare(c *lconn) {
	pr := c.job.pr
	if pr.wire != nil {
		c.pending = pr.wire
	} else {
		w := l.w
		w.vals.Slot = c.job.k
		w.vals.Row = l.ex.s.Row(int(c.job.entry), c.job.k)
		c.wbuf = l.wire.render(c.wbuf[:0], pr, &w.vals, &w.req)
		c.pending = c.wbuf
	}
	c.sent, c.out, c.in = -1, 0, 0
	c.sampling = false
	c.p.Reset(pr.spec.Method == "HEAD", c.t.maxBody)
}

// headHook is c's parser hook: once a response's status is known, it
// decides whether the response is the first of its kind, worth a sample.
func (l *evloop) headHook(c *lconn) func(int, []byte) int {
	return func(status int, head []byte) int {
		ep := c.job.pr.endpoint
		if status < 0 || status > 0xffff || (ep == c.seenEP && uint16(status) == c.seenStatus) {
			return 0
		}
		if !l.w.sampleNew(ep, uint16(status)) {
			c.seenEP, c.seenStatus = ep, uint16(status)
			return 0
		}
		c.sampling = true
		c.head = append(c.head[:0], head...)
		return l.ex.maxSample
	}
}

// write sends what is left of c's request.
func (l *evloop) write(c *lconn) {
	if c.sent < 0 {
		c.sent = l.ex.clock.now()
	}
	for len(c.pending) > 0 {
		n, errno := rawWrite(c.fd, c.pending)
		if errno == unix.EINTR {
			continue
		}
		if errno == unix.EAGAIN {
			if !c.wantOut {
				l.modify(c, true)
			}
			return
		}
		if errno != 0 {
			l.fail(c, errno)
			return
		}
		c.out += int64(n)
		c.pending = c.pending[n:]
	}
	c.pending = nil
	if c.wantOut {
		l.modify(c, false)
	}
}

// read reads what arrived on c and feeds it to the parser.
func (l *evloop) read(c *lconn) {
	for {
		n, errno := l.recv(c, c.rbuf[c.rlen:])
		switch {
		case errno == unix.EAGAIN:
			return
		case errno == unix.EINTR:
			continue
		case errno != 0:
			l.fail(c, errno)
			return
		case n == 0:
			if _, err := c.p.EOF(); err != nil { // else the body ended with the connection
				l.fail(c, err)
				return
			}
			c.p.Close = true
			l.complete(c, l.ex.clock.now()) // the close itself carries no stamp
			return
		}
		c.in += int64(n)
		full := c.rlen+n == len(c.rbuf)
		c.rlen += n
		used, done, err := c.p.Feed(c.rbuf[:c.rlen])
		if err != nil {
			l.fail(c, err)
			return
		}
		if used > 0 {
			c.rlen = copy(c.rbuf, c.rbuf[used:c.rlen])
		}
		if done {
			l.complete(c, c.rxAt)
			return
		}
		if !c.partial {
			c.partial = true
			l.partials++
		}
		if c.rlen == len(c.rbuf) && len(c.rbuf) >= maxReadBuf {
			l.fail(c, h1.ErrProtocol) // unreachable: the parser refuses heads over h1.MaxHead
			return
		}
		if full && len(c.rbuf) < maxReadBuf {
			// A head larger than the buffer, or a large body: fewer,
			// larger reads from now on.
			grown := make([]byte, min(2*len(c.rbuf), maxReadBuf))
			copy(grown, c.rbuf[:c.rlen])
			c.rbuf = grown
		}
		if !full {
			return // level-triggered: epoll says when there is more
		}
	}
}

// complete records c's response, finished at done, and frees c for the
// next job.
func (l *evloop) complete(c *lconn, done int64) {
	l.whole(c)
	j := c.job
	// Bytes beyond the response (we never pipeline) mean the server and the
	// framing disagree, and a server that answered before reading the
	// whole request (a 413, say) has the rest of it still coming: either
	// way the connection cannot be trusted with another request.
	keepConn := !c.p.Close && c.rlen == 0 && c.pending == nil
	row := l.w.outcome(j.pr, j.k, j.sched, c.sent, done, c.out, c.in, c.p.Status, nil)
	if c.sampling && l.w.wantSample(&row) {
		l.w.putSample(&row, j.pr, c.head, c.p.Body, c.p.BodyLen)
	}
	l.w.keep(row, done)
	l.busy--
	if keepConn && !l.ex.aborted.Load() {
		l.reuse(c)
	} else {
		l.closeConn(c)
		l.refill(c.t)
	}
	if j.user >= 0 {
		l.userDone(j.user, done, true)
	}
}

// reuse hands the idle connection c to the next queued job of its target,
// or parks it.
func (l *evloop) reuse(c *lconn) {
	c.state = connIdle
	t := c.t
	if t.queue.len() > 0 {
		j := t.queue.pop()
		l.queued--
		l.begin(c, j)
		return
	}
	t.idle = append(t.idle, c)
}

// fail records c's job as failed with err and closes c.
func (l *evloop) fail(c *lconn, err error) {
	j, sent, out, in := c.job, c.sent, c.out, c.in
	dialing := c.state == connDialing
	l.busy--
	l.closeConn(c)
	if _, isTimeout := err.(timeoutError); dialing && !isTimeout {
		if _, ok := err.(*dialError); !ok {
			err = &dialError{err}
		}
	}
	l.finishJob(j, sent, out, in, err)
}

// finishJob records a job that ended without a response.
func (l *evloop) finishJob(j ljob, sent, out, in int64, err error) {
	done := l.ex.clock.now()
	row := l.w.outcome(j.pr, j.k, j.sched, sent, done, out, in, 0, err)
	if l.w.wantSample(&row) {
		l.w.putSample(&row, j.pr, nil, nil, 0)
	}
	l.w.keep(row, done)
	l.refill(l.targets[j.pr.spec.Target])
	if j.user >= 0 {
		l.userDone(j.user, done, false)
	}
}

// refill dials for queued jobs while a closed connection left room. Dials
// that fail at once come back here: the flag keeps that a loop, not a
// recursion.
func (l *evloop) refill(t *ltarget) {
	if l.refilling {
		return
	}
	l.refilling = true
	for t.queue.len() > 0 && t.open < t.maxConns && !l.ex.aborted.Load() {
		q := t.queue.pop()
		l.queued--
		l.dial(t, q)
	}
	l.refilling = false
}

// closeConn closes c; a connection that was idle leaves its target's idle
// list.
func (l *evloop) closeConn(c *lconn) {
	if c.fd < 0 {
		return
	}
	t := c.t
	if c.state == connIdle {
		for i, x := range t.idle {
			if x == c {
				t.idle = append(t.idle[:i], t.idle[i+1:]...)
				break
			}
		}
	}
	t.open--
	l.releaseConn(c)
}

// whole marks c as no longer holding part of a response.
func (l *evloop) whole(c *lconn) {
	if c.partial {
		c.partial = false
		l.partials--
	}
}

func (l *evloop) releaseConn(c *lconn) {
	l.whole(c)
	unix.Close(c.fd) // also leaves the epoll set
	if c.wantOut {
		c.wantOut = false
		l.outs--
	}
	c.fd = -1
	c.state = connIdle
	c.pending = nil
	l.closed = append(l.closed, c.id)
}

// modify switches EPOLLOUT interest on or off.
func (l *evloop) modify(c *lconn, out bool) {
	ev := unix.EpollEvent{Events: unix.EPOLLIN | unix.EPOLLRDHUP, Fd: c.id}
	if out {
		ev.Events |= unix.EPOLLOUT
	}
	_ = unix.EpollCtl(l.epfd, unix.EPOLL_CTL_MOD, c.fd, &ev)
	if out != c.wantOut {
		if out {
			l.outs++
		} else {
			l.outs--
		}
	}
	c.wantOut = out
}

// scan fails what outlived its timeout: dials, requests in flight, and
// jobs that waited too long for a connection.
func (l *evloop) scan() {
	now := l.now
	// Every millisecond plus a µs per connection: thousands of connections
	// are not walked a thousand times a second.
	l.nextScan = now + scanEvery + int64(len(l.conns))*int64(time.Microsecond)
	for _, c := range l.conns {
		if c.fd < 0 || c.state == connIdle {
			continue
		}
		switch {
		case c.state == connDialing && now >= c.dialEnd:
			l.fail(c, &dialError{timeoutError{}})
		case now >= c.deadline:
			l.fail(c, timeoutError{})
		}
	}
	for _, t := range l.targets {
		for t.queue.len() > 0 {
			if j := t.queue.peek(); now < j.ready+int64(j.pr.timeout) {
				break
			}
			j := t.queue.pop()
			l.queued--
			l.finishJob(j, -1, 0, 0, timeoutError{})
		}
	}
}

// dropQueued records the jobs still waiting for a connection as not sent:
// after a stop nothing new starts.
func (l *evloop) dropQueued() {
	for _, t := range l.targets {
		for t.queue.len() > 0 {
			j := t.queue.pop()
			l.queued--
			l.w.notSent(j.k, int(j.entry), j.sched)
			if j.user >= 0 {
				l.active--
			}
		}
	}
}

// abort cuts every connection: what is in flight is recorded as
// interrupted.
func (l *evloop) abort() {
	for _, c := range l.conns {
		if c.fd < 0 {
			continue
		}
		if c.state == connIdle {
			l.closeConn(c)
			continue
		}
		l.fail(c, errAborted)
	}
}

// finish closes what is left and hands the last rows over.
func (l *evloop) finish() {
	for _, c := range l.conns {
		if c.fd >= 0 {
			l.closeConn(c)
		}
	}
	unix.Close(l.epfd)
	if l.stamps && l.keeper >= 0 {
		unix.Close(l.keeper)
	}
	if l.src != nil && l.loopIdx == 0 {
		// Every loop reads the whole stream; the first one speaks for all.
		if err := compile.StreamErr(l.src); err != nil {
			l.ex.streamErr = err
		} else if l.srcDone && l.k != uint64(l.ex.s.Count) {
			l.ex.streamErr = fmt.Errorf("the schedule ended after %d of its %d slots", l.k, l.ex.s.Count)
		}
	}
	l.w.flush()
}

func rawWrite(fd int, b []byte) (int, syscall.Errno) {
	r, _, e := unix.RawSyscall(unix.SYS_WRITE, uintptr(fd), uintptr(unsafe.Pointer(&b[0])), uintptr(len(b)))
	return int(r), e
}

func rawRead(fd int, b []byte) (int, syscall.Errno) {
	r, _, e := unix.RawSyscall(unix.SYS_READ, uintptr(fd), uintptr(unsafe.Pointer(&b[0])), uintptr(len(b)))
	return int(r), e
}

// lowerThreadPriority puts the calling thread in SCHED_IDLE: it runs only
// when nothing else on its core wants to. Best effort.
func lowerThreadPriority() {
	_ = unix.SchedSetAttr(0, &unix.SchedAttr{Policy: unix.SCHED_IDLE}, 0)
}

// recv reads from c into b and sets c.rxAt: the kernel's receive stamp of
// the last bytes read when the loop keeps stamps, else the clock now.
func (l *evloop) recv(c *lconn, b []byte) (int, syscall.Errno) {
	if !l.stamps {
		n, errno := rawRead(c.fd, b)
		c.rxAt = l.ex.clock.now()
		return n, errno
	}
	l.iov.Base = &b[0]
	l.iov.SetLen(len(b))
	l.msg.Iov = &l.iov
	l.msg.Iovlen = 1
	l.msg.Control = &l.oob[0]
	l.msg.SetControllen(len(l.oob))
	r, _, errno := unix.RawSyscall(unix.SYS_RECVMSG, uintptr(c.fd), uintptr(unsafe.Pointer(&l.msg)), 0)
	if errno != 0 || r == 0 {
		return int(r), errno
	}
	c.rxAt = l.ex.clock.now()
	// One control message is asked for: SCM_TIMESTAMPING, whose first
	// timespec is the software receive stamp (wall clock).
	const hdr = unix.SizeofCmsghdr
	if int(l.msg.Controllen) >= hdr+int(unsafe.Sizeof(unix.Timespec{})) {
		h := (*unix.Cmsghdr)(unsafe.Pointer(&l.oob[0]))
		if h.Level == unix.SOL_SOCKET && h.Type == unix.SO_TIMESTAMPING {
			ts := (*unix.Timespec)(unsafe.Pointer(&l.oob[hdr]))
			if at := ts.Nano() - l.wallBase; at > 0 && at < c.rxAt && (c.sent < 0 || at >= c.sent) {
				c.rxAt = at
			}
		}
	}
	return int(r), 0
}

// sleep sleeps d ns without watching the sockets.
func (l *evloop) sleep(d int64) {
	ts := unix.NsecToTimespec(d)
	unix.RawSyscall(unix.SYS_NANOSLEEP, uintptr(unsafe.Pointer(&ts)), 0, 0)
}
