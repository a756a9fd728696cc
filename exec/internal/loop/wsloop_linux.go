package loop

import (
	"math/rand/v2"

	"github.com/tressi/tressi/compile"
	"github.com/tressi/tressi/exec/internal/run"
	"github.com/tressi/tressi/exec/internal/sys"
	"github.com/tressi/tressi/ws"
	"golang.org/x/sys/unix"
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
	ex    *run.Executor
	sink  *run.RowSink // the host's
	vals  compile.Values
	stats *wsStats
	progs []*run.Program
	p     *sys.Poller // the host's; sessions' ids carry wsBit there
	now   int64

	sess    []*wsSession // by id, the epoll data of its socket
	free    []int32
	active  int
	open    int
	rbuf    []byte
	cipher  []byte // a TLS session's bytes as read, before its transport takes them
	scratch []byte
	frame   []byte // a frame being built, or the upgrade request
	rng     *rand.ChaCha8
	targets []*ltarget  // the host's
	marks   bool        // some step marks its frames: scan incoming frames for marks
	tag     uint32      // this run's mark tag
	block   []wsSession // sessions allocated and not used yet
	halt    run.Halt    // whether sending stops, as of the last wake-up
	touched uintptr     // what touch read (kept, so the reads are not dropped)

	// The loop sleeps through replies between bursts, as the HTTP loop's
	// open model does (runOpen): rxs reads them with the kernel's receive
	// stamps, and rx is when the bytes being handled arrived (the clock,
	// without a stamp). outs counts sessions waiting to write and
	// handshaking those whose TLS handshake runs: the loop does not sleep
	// through their events. full: the last wait returned as many events as
	// it could, so more are ready.
	rxs         *sys.RxStamps // the host's
	rx          int64
	outs        int
	handshaking int
	full        bool

	queued    int  // sessions waiting for a connection (wsadmit_linux.go)
	refilling bool // refill is running
	cutting   bool // sending stopped, and pausing sessions were woken to say so
}

const (
	wsDialing     = iota
	wsHandshaking // TLS (wss://): the transport's handshake runs
	wsHTTP        // before the connect: its HTTP steps run as the host's session (startSession)
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
	ended   bool // the socket ended during the TLS handshake and left the poller (readTLS)
	id      int32
	fd      int
	k       uint64
	prog    *run.Program
	tr      run.Transport // wss://: TLS between the socket and the frames; nil for ws://

	// The program cursor: step i, repeat j; inside a for_each at i,
	// iteration fe, nested step fi, repeat fj (fe < 0: not inside).
	i, j, fe, fi, fj int
	ready            int64 // when the next step became ready: its rows' scheduled instant
	wakeAt           int64 // the next step waits until then (think, hold); -1: now
	timerAt          int64 // the instant of its entry in the timer heap; -1: none
	deadline         int64 // it sends nothing after it (its user's stop plus the grace)
	lastAnswer       int64 // when the last await was settled
	frames           uint32
	awaits           []wsPending  // outstanding, in the order they were sent; on awaitBuf while one is
	out              []byte       // bytes the socket did not take yet
	cap              run.Captured // what its steps captured (every send's values)
	awaitBuf         [1]wsPending
	r                ws.Reader

	t       *ltarget
	user    int32 // the closed-model user running it; -1 in the open model
	closeEP uint16
	key     [ws.KeyLen]byte
	head    []byte // the upgrade response while it arrives
	start   int64
	items   [][]byte
	// dialAt is when the dial began; connect how long it took to open the
	// connection (TCP, and TLS for wss://): the connect row's connect_ns.
	dialAt, connect int64
	dialEnd         int64 // the connect timeout's instant, while dialing
	connSched       int64
	connSent        int64
	connOut         int64 // the upgrade request's bytes: the connect row's bytes_out
	// lost is why the connection ended, once it has: the detail of the
	// samples of the rows that ended with it (a close code and reason, the
	// rule of RFC 6455 the server broke).
	lost       error
	closeSched int64
	closeSent  int64
	_          [48]byte // to a whole number of cache lines: see sessionBlock
}

// wsPending is an outstanding await (or the close handshake).
type wsPending struct {
	st       *run.Step
	sched    int64
	sent     int64
	deadline int64
	out      int64
	pause    int64 // think after the answer, when blocking
	block    bool
	want     [][]byte
	each     int // for_each iteration it was sent in (-1: none)
}

// newWSLoop is loop i's WebSocket part, in host: the host's targets (their
// dial paths and connection caps), poller, receive stamps and sink.
func newWSLoop(ex *run.Executor, host *evloop, progs []*run.Program, i int) *wsLoop {
	marks := false
	for _, p := range progs {
		if p != nil && marked(p) {
			marks = true
		}
	}
	l := &wsLoop{host: host, ex: ex, sink: &host.sink, stats: newWSStats(), progs: progs, p: host.p, rxs: &host.rx,
		rbuf: make([]byte, 64<<10), targets: host.targets, marks: marks, tag: ex.RunTag,
		rng: rand.NewChaCha8([32]byte{byte(i), byte(ex.S.Seed), byte(ex.S.Seed >> 8), 0x77, 0x73})}
	l.vals.Seed = ex.S.Seed
	return l
}

func marked(p *run.Program) bool {
	var walk func([]run.Step) bool
	walk = func(steps []run.Step) bool {
		for i := range steps {
			if w := steps[i].Spec.WebSocket; w != nil && w.Marked || walk(steps[i].Each) {
				return true
			}
		}
		return false
	}
	return walk(p.Steps)
}

// The host loop drives its WebSocket part (loop_linux.go, loopopen_linux.go,
// loopclosed_linux.go): timers fire in the open model's bursts, at most
// a burst quantum apart, with the slots; a send due meanwhile goes out with
// the next burst, a little late (the lateness is its send lag), and the
// loop wakes once per quantum, not once per frame.

// begin starts a round of the host's: the clock, and whether sending
// stops.
func (l *wsLoop) begin(now int64) {
	l.now = now
	l.halt = l.ex.Look()
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

// idle: no session runs or waits for a connection.
func (l *wsLoop) idle() bool { return l.active == 0 && l.queued == 0 }

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
	l.halt = l.ex.Look()
	for i := range evs {
		if id := evs[i].Fd; id >= 0 && id&sys.WSBit != 0 && int(id&^sys.WSBit) < len(l.sess) {
			l.touched += l.sess[id&^sys.WSBit].touch()
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
	if l.ex.Aborted.Load() {
		l.abortAll()
	}
	l.stats.noteOpen(l.now, l.open)
}

func (l *wsLoop) finish() {
	for _, s := range l.sess {
		l.dropTransport(s)
	}
}
