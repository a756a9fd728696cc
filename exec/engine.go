package exec

import (
	"fmt"
	"sync/atomic"
	"time"

	"github.com/tressi/tressi/compile"
	"github.com/tressi/tressi/exec/internal/fast"
	"github.com/tressi/tressi/exec/internal/loop"
	"github.com/tressi/tressi/exec/internal/record"
	"github.com/tressi/tressi/exec/internal/run"
)

// engine is what sends a schedule's requests. Run builds the recorder an
// engine asks for, starts it, and waits on the executor's wait group for
// what it started; the engine records every slot through rowSinks.
type engine interface {
	// Name is the engine's name in meta.json and the outcome.
	Name() string
	// Senders is how many sinks hand rows to the recorder at once.
	Senders() int
	// BatchRows is how many rows the recorder writes at a time.
	BatchRows() int
	// Background: the recorder runs at idle priority on a thread of its
	// own, since the engine holds the other Ps.
	Background() bool
	// Start starts sending. An error means nothing was started.
	Start() error
}

// warmer is an engine that opens its connections before the run's instant
// zero: warm returns when they are ready (or until, in run time, comes),
// with what meta.json says of it (nil: nothing warmed).
type warmer interface {
	Warm(until int64) *record.Warmup
}

// warmLimit bounds the warm-up: a server that accepts connections slowly
// (or not at all) delays the start by no more than this.
const warmLimit = 2 * time.Second

// chooseEngine picks the engine that runs ex's schedule: the loop wherever
// it can run the plan, fasthttp elsewhere or when asked. For the loop
// engine, how many loops: one per P (GOMAXPROCS) but one, which is left to
// the recorder (encoding and compressing rows is real work) and whatever
// else shares the process; one loop on one P. No more loops than any
// target has connections or the shard has users to share between them.
func chooseEngine(ex *run.Executor, asked string) (engine, error) {
	s := ex.S
	if err := loop.CheckSources(s); err != nil {
		return nil, &InputError{Err: err}
	}
	session := new(atomic.Uint64)
	fasthttp := fast.New(ex, session)
	h2Target := http2Target(s)
	switch asked {
	case EngineFasthttp:
		if h2Target != "" {
			return nil, &InputError{Err: fmt.Errorf("the fasthttp engine cannot run this plan: %s, and fasthttp speaks HTTP/1.1 only; leave the engine unset to get the loop", h2Target)}
		}
		if why := digestUnfit(s, EngineFasthttp); why != "" {
			return nil, &InputError{Err: fmt.Errorf("the fasthttp engine cannot run this plan: %s", why)}
		}
		return fasthttp, nil
	case EngineLoop, "":
	default:
		return nil, &InputError{Err: fmt.Errorf("unknown engine %q: use %s or %s", asked, EngineLoop, EngineFasthttp)}
	}
	if why := digestUnfit(s, EngineLoop); why != "" {
		return nil, &InputError{Err: fmt.Errorf("tressi cannot run this plan: %s", why)}
	}
	if run.HasWebSocket(s) {
		addrs, why := loop.LoopUnfit(s)
		if why != "" {
			return nil, &InputError{Err: fmt.Errorf("WebSocket sessions run on the loop engine, and it cannot run this plan: %s", why)}
		}
		progs, err := run.WebSocketPrograms(ex)
		if err != nil {
			return nil, err
		}
		ex.WSProgs = progs
		return loop.NewLoopEngine(ex, addrs, session), nil
	}
	addrs, why := loop.LoopUnfit(s)
	switch {
	case why != "" && asked == EngineLoop:
		return nil, &InputError{Err: fmt.Errorf("the loop engine cannot run this plan: %s; leave the engine unset to get the one that can", why)}
	case why != "" && h2Target != "":
		return nil, &InputError{Err: fmt.Errorf("%s, which only the loop engine speaks, and the loop cannot run this plan: %s", h2Target, why)}
	case why != "" && digestUnfit(s, EngineFasthttp) != "":
		return nil, &InputError{Err: fmt.Errorf("%s, and the loop cannot run this plan: %s", digestUnfit(s, EngineFasthttp), why)}
	case why != "":
		return fasthttp, nil
	}
	return loop.NewLoopEngine(ex, addrs, session), nil
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
