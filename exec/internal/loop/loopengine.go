package loop

import (
	"fmt"
	"net"
	"runtime"
	"sync/atomic"

	"github.com/tressi/tressi/compile"
	"github.com/tressi/tressi/exec/internal/record"
	"github.com/tressi/tressi/exec/internal/run"
)

// loopEngine is the epoll event loops (loop_linux.go): one per spare P,
// each driving its share of the connections.
type loopEngine struct {
	ex      *run.Executor
	loops   int
	addrs   []*net.TCPAddr // by target
	session *atomic.Uint64
	// built: the loops the warm-up built and warmed (loopwarm_linux.go),
	// or err, why it could not build them; start uses them.
	built []*evloop
	err   error
}

func (e *loopEngine) Name() string { return run.EngineLoop }

func (e *loopEngine) Senders() int { return e.loops }

func (e *loopEngine) Background() bool { return true }

// BatchRows: the loops' recorder runs at idle priority and never delays a
// burst, so the open model takes the large batches too.
func (e *loopEngine) BatchRows() int { return record.ClosedBatchRows }

func (e *loopEngine) Start() error {
	if err := e.build(); err != nil {
		return fmt.Errorf("starting the loop engine: %w (--engine fasthttp runs without it)", err)
	}
	e.run()
	return nil
}

// build makes the loops, unless the warm-up has (or failed to).
func (e *loopEngine) build() error {
	if e.built == nil && e.err == nil {
		e.built, e.err = newLoops(e.ex, e.loops, e.addrs)
	}
	return e.err
}

// Finish writes websocket.json into dir for a plan with WebSocket
// sessions.
func (e *loopEngine) Finish(dir string) error {
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
	if ex := e.ex; ex.S.Model == compile.Open {
		startLoopsOpen(ex, e.built, ex.S.Slots)
	} else {
		startLoopsClosed(ex, e.built, e.session)
	}
}

func NewLoopEngine(ex *run.Executor, addrs []*net.TCPAddr, session *atomic.Uint64) *loopEngine {
	s := ex.S
	n := max(runtime.GOMAXPROCS(0)-1, 1)
	for _, t := range s.Targets {
		n = min(n, t.Connections)
	}
	if s.Model == compile.Closed {
		n = min(n, int(ex.Shard.Slots(int64(len(s.Users)))))
	}
	return &loopEngine{ex: ex, loops: max(n, 1), addrs: addrs, session: session}
}

// LoopUnfit says why the loop engine cannot run s, or "" when it can, with
// the targets' addresses. The loop speaks HTTP/1.1, plain or over TLS
// (looptls_linux.go), to addresses resolved once, here: endpoints and
// scenarios, pooled or with a connection per session.
func LoopUnfit(s *compile.Schedule) ([]*net.TCPAddr, string) {
	if !LoopSupported() {
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
