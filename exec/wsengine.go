package exec

import (
	"fmt"
	"runtime"
	"sync/atomic"

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
		var session *atomic.Uint64
		if e.ex.s.Model == compile.Closed {
			session = new(atomic.Uint64)
		}
		e.stats, err = e.ex.startWSLoops(e.loops, progs, e.ex.s.Slots, session, e.ex.runTag)
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

// firstHTTP is the first HTTP endpoint or HTTP scenario of s that runs,
// nil when it has none.
func firstHTTP(s *compile.Schedule) *compile.Entry {
	for i := range s.Entries {
		if e := &s.Entries[i]; !e.WebSocket && e.Weight > 0 {
			return e
		}
	}
	return nil
}

// webSocketEngine checks what the WebSocket loop can run. In the open
// model, HTTP entries beside the sessions run on the HTTP loop
// (mixedEngine); a closed-model user runs its sessions on one loop, one
// after another, so there the plan holds one kind.
func webSocketEngine(ex *executor) (*wsEngine, error) {
	s := ex.s
	if e := firstHTTP(s); e != nil && s.Model == compile.Closed {
		return nil, &InputError{fmt.Errorf("%q is an HTTP endpoint or scenario in a closed-model plan with WebSocket scenarios; a closed-model user runs one kind only. "+
			"Make the load open (rate instead of users), where both kinds run side by side; or put HTTP requests a session needs before it connects (a login whose token goes into the connect's headers) in the WebSocket scenario itself, as steps before its connect; "+
			"or run the other HTTP load as a plan of its own (at the same time, with --start-at, if they must overlap)", e.Name)}
	}
	for _, e := range s.Entries {
		if !e.WebSocket {
			continue
		}
		for _, st := range e.Steps {
			if st.Request < 0 {
				continue
			}
			t := &s.Targets[s.Requests[st.Request].Target]
			if t.Protocol == compile.ProtocolH2 || t.Protocol == compile.ProtocolH2C {
				return nil, &InputError{fmt.Errorf("target %q: WebSocket sessions upgrade over HTTP/1.1, but its protocol is %q; leave protocol unset (or \"http1\") on WebSocket targets", t.Name, t.Protocol)}
			}
		}
	}
	sessions := ex.shard.Slots(s.Count)
	if s.Model == compile.Closed {
		// A user holds one session at a time.
		sessions = int64(len(ex.dealUsers(1)[0]))
	}
	if err := checkWSResources(s, sessions); err != nil {
		return nil, &InputError{err}
	}
	return &wsEngine{ex: ex, loops: max(runtime.GOMAXPROCS(0)-1, 1)}, nil
}

// dealUsers deals the shard's users to n loops, round robin.
func (ex *executor) dealUsers(n int) [][]compile.UserSpan {
	out := make([][]compile.UserSpan, n)
	j := 0
	for u, span := range ex.s.Users {
		if !ex.shard.Owns(uint64(u)) {
			continue
		}
		out[j%n] = append(out[j%n], span)
		j++
	}
	return out
}
