package exec

import (
	"fmt"
	"net"
	"runtime"
	"sync/atomic"
	"time"

	"github.com/tressi/tressi/compile"
)

// engine is what sends a schedule's requests. Run builds the recorder an
// engine asks for, starts it, and waits on the executor's wait group for
// what it started; the engine records every slot through rowSinks.
type engine interface {
	// name is the engine's name in meta.json and the outcome.
	name() string
	// senders is how many sinks hand rows to the recorder at once.
	senders() int
	// batchRows is how many rows the recorder writes at a time.
	batchRows() int
	// background: the recorder runs at idle priority on a thread of its
	// own, since the engine holds the other Ps.
	background() bool
	// start starts sending. An error means nothing was started.
	start() error
}

// fasthttpEngine is lock-free fasthttp workers: one per closed-model user,
// or a pool released by the open model's pacer (worker.go, pacer.go,
// session.go). It runs every plan, on every OS.
type fasthttpEngine struct {
	ex      *executor
	session *atomic.Uint64
}

func (e *fasthttpEngine) name() string { return EngineFasthttp }

func (e *fasthttpEngine) senders() int {
	s := e.ex.s
	if s.Model == compile.Open {
		return workerCount(s, s.Count)
	}
	return len(s.Users)
}

func (e *fasthttpEngine) batchRows() int {
	if e.ex.s.Model == compile.Open {
		return openBatchRows
	}
	return closedBatchRows
}

func (e *fasthttpEngine) background() bool { return false }

func (e *fasthttpEngine) start() error {
	ex := e.ex
	if ex.s.Model == compile.Open {
		ex.startOpen(ex.s.Slots())
	} else {
		ex.startClosed(e.session)
	}
	return nil
}

// warmer is an engine that opens its connections before the run's instant
// zero: warm returns when they are ready (or until, in run time, comes),
// with what meta.json says of it (nil: nothing warmed).
type warmer interface {
	warm(until int64) *warmup
}

// warmLimit bounds the warm-up: a server that accepts connections slowly
// (or not at all) delays the start by no more than this.
const warmLimit = 2 * time.Second

// warmup is what meta.json says of a warm-up.
type warmup struct {
	Connections int64   `json:"connections"` // opened and ready at instant zero
	Ms          float64 `json:"ms"`          // how long it took
}

// loopEngine is the epoll event loops (loop_linux.go): one per spare P,
// each driving its share of the connections.
type loopEngine struct {
	ex      *executor
	loops   int
	addrs   []*net.TCPAddr // by target
	session *atomic.Uint64
	// built: the loops the warm-up built and warmed (loopwarm_linux.go),
	// or err, why it could not build them; start uses them.
	built []*evloop
	err   error
}

func (e *loopEngine) name() string     { return EngineLoop }
func (e *loopEngine) senders() int     { return e.loops }
func (e *loopEngine) background() bool { return true }

// batchRows: the loops' recorder runs at idle priority and never delays a
// burst, so the open model takes the large batches too.
func (e *loopEngine) batchRows() int { return closedBatchRows }

func (e *loopEngine) start() error {
	if err := e.build(); err != nil {
		return fmt.Errorf("starting the loop engine: %w (--engine fasthttp runs without it)", err)
	}
	e.run()
	return nil
}

// build makes the loops, unless the warm-up has (or failed to).
func (e *loopEngine) build() error {
	if e.built == nil && e.err == nil {
		e.built, e.err = e.ex.newLoops(e.loops, e.addrs)
	}
	return e.err
}

// finish writes websocket.json into dir for a plan with WebSocket
// sessions.
func (e *loopEngine) finish(dir string) error {
	var stats []*wsStats
	for _, l := range e.built {
		if ws := l.wsPart(); ws != nil {
			stats = append(stats, ws.stats)
		}
	}
	if stats == nil {
		return nil
	}
	return writeWSSummary(dir, mergeWSStats(stats))
}

// run starts the built loops.
func (e *loopEngine) run() {
	if ex := e.ex; ex.s.Model == compile.Open {
		ex.startLoopsOpen(e.built, ex.s.Slots)
	} else {
		ex.startLoopsClosed(e.built, e.session)
	}
}

// chooseEngine picks the engine that runs ex's schedule: the loop wherever
// it can run the plan, fasthttp elsewhere or when asked. For the loop
// engine, how many loops: one per P (GOMAXPROCS) but one, which is left to
// the recorder (encoding and compressing rows is real work) and whatever
// else shares the process; one loop on one P. No more loops than any
// target has connections or the shard has users to share between them.
func chooseEngine(ex *executor, asked string) (engine, error) {
	s := ex.s
	if err := checkSources(s); err != nil {
		return nil, &InputError{err}
	}
	session := new(atomic.Uint64)
	fasthttp := &fasthttpEngine{ex: ex, session: session}
	h2Target := http2Target(s)
	switch asked {
	case EngineFasthttp:
		if h2Target != "" {
			return nil, &InputError{fmt.Errorf("the fasthttp engine cannot run this plan: %s, and fasthttp speaks HTTP/1.1 only; leave the engine unset to get the loop", h2Target)}
		}
		return fasthttp, nil
	case EngineLoop, "":
	default:
		return nil, &InputError{fmt.Errorf("unknown engine %q: use %s or %s", asked, EngineLoop, EngineFasthttp)}
	}
	if hasWebSocket(s) {
		addrs, why := loopUnfit(s)
		if why != "" {
			return nil, &InputError{fmt.Errorf("WebSocket sessions run on the loop engine, and it cannot run this plan: %s", why)}
		}
		progs, err := webSocketPrograms(ex)
		if err != nil {
			return nil, err
		}
		ex.wsProgs = progs
		return newLoopEngine(ex, addrs, session), nil
	}
	addrs, why := loopUnfit(s)
	switch {
	case why != "" && asked == EngineLoop:
		return nil, &InputError{fmt.Errorf("the loop engine cannot run this plan: %s; leave the engine unset to get the one that can", why)}
	case why != "" && h2Target != "":
		return nil, &InputError{fmt.Errorf("%s, which only the loop engine speaks, and the loop cannot run this plan: %s", h2Target, why)}
	case why != "":
		return fasthttp, nil
	}
	return newLoopEngine(ex, addrs, session), nil
}

func newLoopEngine(ex *executor, addrs []*net.TCPAddr, session *atomic.Uint64) *loopEngine {
	s := ex.s
	n := max(runtime.GOMAXPROCS(0)-1, 1)
	for _, t := range s.Targets {
		n = min(n, t.Connections)
	}
	if s.Model == compile.Closed {
		n = min(n, int(ex.shard.Slots(int64(len(s.Users)))))
	}
	return &loopEngine{ex: ex, loops: max(n, 1), addrs: addrs, session: session}
}

// loopUnfit says why the loop engine cannot run s, or "" when it can, with
// the targets' addresses. The loop speaks HTTP/1.1, plain or over TLS
// (looptls_linux.go), to addresses resolved once, here: endpoints and
// scenarios, pooled or with a connection per session.
func loopUnfit(s *compile.Schedule) ([]*net.TCPAddr, string) {
	if !loopSupported() {
		return nil, "it runs on Linux only"
	}
	addrs := make([]*net.TCPAddr, len(s.Targets))
	for i, t := range s.Targets {
		a, err := net.ResolveTCPAddr("tcp", t.Addr)
		if err != nil {
			return nil, fmt.Sprintf("target %q: %v", t.Name, err)
		}
		addrs[i] = a
	}
	return addrs, ""
}

// checkSources refuses source addresses that cannot reach their target:
// an IPv4 address beside an IPv6 target, or the reverse.
func checkSources(s *compile.Schedule) error {
	for i := range s.Targets {
		t := &s.Targets[i]
		if len(t.SourceAddresses) == 0 {
			continue
		}
		a, err := net.ResolveTCPAddr("tcp", t.Addr)
		if err != nil {
			return fmt.Errorf("target %q: %w", t.Name, err)
		}
		for _, src := range t.SourceAddresses {
			if (net.ParseIP(src).To4() == nil) != (a.IP.To4() == nil) {
				return sourceFamilyError(t, src)
			}
		}
	}
	return nil
}

func sourceFamilyError(t *compile.Target, src string) error {
	return fmt.Errorf("target %q: source address %s is not of the target's address family; list addresses of the same family as its host (IPv4 beside an IPv4 address, IPv6 beside IPv6)", t.Name, src)
}

// http2Target names a target that must speak HTTP/2 ("" when none does):
// only the loop engine can. ("auto" may settle for HTTP/1.1.)
func http2Target(s *compile.Schedule) string {
	for _, t := range s.Targets {
		if t.Protocol == compile.ProtocolH2 || t.Protocol == compile.ProtocolH2C {
			return fmt.Sprintf("target %q uses protocol %q", t.Name, t.Protocol)
		}
	}
	return ""
}

// InputError is an error in what Run was given (the schedule, the
// options): the user can fix it. Every other error of Run is the run
// failing (exit code 3 in the CLI).
type InputError struct{ Err error }

func (e *InputError) Error() string { return e.Err.Error() }
func (e *InputError) Unwrap() error { return e.Err }
