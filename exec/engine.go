package exec

import (
	"fmt"
	"net"
	"runtime"

	"github.com/tressi/tressi/compile"
	"github.com/tressi/tressi/plan"
	"github.com/tressi/tressi/results"
)

// chooseEngine picks the engine that runs s, and for the loop engine how
// many loops: one per P (GOMAXPROCS) but one, which is left to the recorder
// (encoding and compressing rows is real work) and whatever else shares
// the process; one loop on one P. No more loops than any target has
// connections or the shard has users to share between them.
func chooseEngine(s *compile.Schedule, shard results.Shard, asked string) (engine string, loops int, err error) {
	why := loopUnfit(s)
	switch asked {
	case EngineFasthttp:
		return EngineFasthttp, 0, nil
	case EngineLoop:
		if why != "" {
			return "", 0, fmt.Errorf("the loop engine cannot run this plan: %s; leave the engine unset to get the one that can", why)
		}
	case "":
		if why != "" {
			return EngineFasthttp, 0, nil
		}
	default:
		return "", 0, fmt.Errorf("unknown engine %q: use %s or %s", asked, EngineLoop, EngineFasthttp)
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
	return EngineLoop, max(n, 1), nil
}

// loopUnfit says why the loop engine cannot run s, or "" when it can. It
// speaks plain HTTP/1.1 to addresses resolved once at the start; TLS and
// scenarios (captures, per-session connections) stay on fasthttp.
func loopUnfit(s *compile.Schedule) string {
	if !loopSupported() {
		return "it runs on Linux only"
	}
	for _, t := range s.Targets {
		switch {
		case t.Scheme == "https":
			return fmt.Sprintf("target %q uses https", t.Name)
		case t.Connection == plan.ConnectionSession:
			return fmt.Sprintf("target %q keeps a connection per session", t.Name)
		}
		if _, err := net.ResolveTCPAddr("tcp", t.Addr); err != nil {
			return fmt.Sprintf("target %q: %v", t.Name, err)
		}
	}
	for _, e := range s.Entries {
		if e.Scenario {
			return fmt.Sprintf("%q is a scenario", e.Name)
		}
	}
	return ""
}
