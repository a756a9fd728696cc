package exec

import (
	"fmt"
	"net"
	"runtime"

	"github.com/tressi/tressi/compile"
	"github.com/tressi/tressi/plan"
	"github.com/tressi/tressi/results"
)

// engineChoice is what runs a plan: the engine, and for the loop engine how
// many loops and the targets' addresses, resolved once.
type engineChoice struct {
	name  string
	loops int
	addrs []*net.TCPAddr // by target
}

// chooseEngine picks the engine that runs s, and for the loop engine how
// many loops: one per P (GOMAXPROCS) but one, which is left to the recorder
// (encoding and compressing rows is real work) and whatever else shares
// the process; one loop on one P. No more loops than any target has
// connections or the shard has users to share between them.
func chooseEngine(s *compile.Schedule, shard results.Shard, asked string) (engineChoice, error) {
	fasthttp := engineChoice{name: EngineFasthttp}
	switch asked {
	case EngineFasthttp:
		return fasthttp, nil
	case EngineLoop, "":
	default:
		return engineChoice{}, fmt.Errorf("unknown engine %q: use %s or %s", asked, EngineLoop, EngineFasthttp)
	}
	if hasWebSocket(s) {
		return webSocketEngine(s)
	}
	addrs, why := loopUnfit(s)
	switch {
	case why != "" && asked == EngineLoop:
		return engineChoice{}, fmt.Errorf("the loop engine cannot run this plan: %s; leave the engine unset to get the one that can", why)
	case why != "":
		return fasthttp, nil
	}
	n := max(runtime.GOMAXPROCS(0)-1, 1)
	for _, t := range s.Targets {
		n = min(n, max(t.Connections, 1))
	}
	if s.Model == compile.Closed {
		users := 0
		for u := range s.Users {
			if u%max(shard.Count, 1) == shard.Index {
				users++
			}
		}
		n = min(n, users)
	}
	return engineChoice{name: EngineLoop, loops: max(n, 1), addrs: addrs}, nil
}

// loopUnfit says why the loop engine cannot run s, or "" when it can, with
// the targets' addresses. The loop speaks plain HTTP/1.1 to addresses
// resolved once, here; TLS and scenarios (captures, per-session
// connections) stay on fasthttp.
func loopUnfit(s *compile.Schedule) ([]*net.TCPAddr, string) {
	if !loopSupported() {
		return nil, "it runs on Linux only"
	}
	for _, e := range s.Entries {
		if e.Scenario {
			return nil, fmt.Sprintf("%q is a scenario", e.Name)
		}
	}
	addrs := make([]*net.TCPAddr, len(s.Targets))
	for i, t := range s.Targets {
		switch {
		case t.Scheme == "https":
			return nil, fmt.Sprintf("target %q uses https", t.Name)
		case t.Connection == plan.ConnectionSession:
			return nil, fmt.Sprintf("target %q keeps a connection per session", t.Name)
		}
		a, err := net.ResolveTCPAddr("tcp", t.Addr)
		if err != nil {
			return nil, fmt.Sprintf("target %q: %v", t.Name, err)
		}
		addrs[i] = a
	}
	return addrs, ""
}

func hasWebSocket(s *compile.Schedule) bool {
	for _, e := range s.Entries {
		if e.WebSocket {
			return true
		}
	}
	return false
}

// webSocketEngine runs WebSocket sessions on their event loops: one per P
// but one, as the HTTP loop does. A plan mixing them with HTTP entries, the
// closed model and wss:// are not supported yet; say so rather than run
// something else.
func webSocketEngine(s *compile.Schedule) (engineChoice, error) {
	for _, e := range s.Entries {
		if !e.WebSocket && e.Weight > 0 {
			return engineChoice{}, fmt.Errorf("%q is an HTTP entry in a plan with WebSocket scenarios; run them as two plans (one engine runs a plan)", e.Name)
		}
	}
	if s.Model != compile.Open {
		return engineChoice{}, fmt.Errorf("WebSocket scenarios run in the open model (load { stage { rate = ... } }); the closed model is not supported for them yet")
	}
	for _, t := range s.Targets {
		if t.Scheme == "https" {
			return engineChoice{}, fmt.Errorf("target %q: wss:// (WebSocket over TLS) is not supported by the WebSocket loop yet; use ws:// or http://", t.Name)
		}
	}
	return engineChoice{name: EngineLoop, loops: max(runtime.GOMAXPROCS(0)-1, 1)}, nil
}
