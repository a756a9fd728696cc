package exec

import (
	"fmt"
	"runtime"

	"github.com/tressi/tressi/compile"
)

// wsEngine runs a plan's WebSocket sessions on WebSocket loops (one per
// spare P, as loopEngine) and writes websocket.json when the run ends.
type wsEngine struct {
	ex    *executor
	loops int
	stats []*wsStats
}

func (e *wsEngine) name() string     { return EngineLoop }
func (e *wsEngine) senders() int     { return e.loops }
func (e *wsEngine) background() bool { return true }
func (e *wsEngine) batchRows() int   { return closedBatchRows }

func (e *wsEngine) start() error {
	progs, err := newWSPrograms(e.ex)
	if err == nil {
		e.stats, err = e.ex.startWSLoops(e.loops, progs, e.ex.s.Slots, e.ex.runTag)
	}
	if err != nil {
		return fmt.Errorf("starting the WebSocket loop: %w", err)
	}
	return nil
}

// finish writes websocket.json into dir.
func (e *wsEngine) finish(dir string) error {
	if e.stats == nil {
		return nil
	}
	return writeWSSummary(dir, mergeWSStats(e.stats))
}

func hasWebSocket(s *compile.Schedule) bool {
	for _, e := range s.Entries {
		if e.WebSocket {
			return true
		}
	}
	return false
}

// webSocketEngine checks what the WebSocket loop can run. A plan mixing
// WebSocket sessions with HTTP entries and the closed model are not
// supported yet: say so rather than run something else.
func webSocketEngine(ex *executor) (engine, error) {
	s := ex.s
	for _, e := range s.Entries {
		if !e.WebSocket && e.Weight > 0 {
			return nil, &InputError{fmt.Errorf("%q is an HTTP entry in a plan with WebSocket scenarios; run them as two plans for now", e.Name)}
		}
	}
	if s.Model != compile.Open {
		return nil, &InputError{fmt.Errorf("WebSocket scenarios run in the open model (load { stage { rate = ... } }); the closed model is not supported for them yet")}
	}
	for _, t := range s.Targets {
		if t.Protocol == compile.ProtocolH2 || t.Protocol == compile.ProtocolH2C {
			return nil, &InputError{fmt.Errorf("target %q: WebSocket sessions upgrade over HTTP/1.1, but its protocol is %q; leave protocol unset (or \"http1\") on WebSocket targets", t.Name, t.Protocol)}
		}
	}
	if err := checkWSResources(s, ex.shard.Slots(s.Count)); err != nil {
		return nil, &InputError{err}
	}
	return &wsEngine{ex: ex, loops: max(runtime.GOMAXPROCS(0)-1, 1)}, nil
}
