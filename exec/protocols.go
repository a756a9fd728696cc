package exec

import (
	"sync/atomic"

	"github.com/tressi/tressi/compile"
)

// protocolCounts counts one target's connections by the protocol they
// spoke, which for protocol = "auto" the server chose (ALPN).
type protocolCounts struct {
	http1, h2, websocket atomic.Int64
}

// connProtocols is meta.json's "protocols": by target, how many
// connections spoke each protocol ("http/1.1", "h2", "h2c", "websocket":
// upgraded), so it names what a run of the one loop actually spoke.
func (ex *executor) connProtocols() map[string]map[string]int64 {
	out := map[string]map[string]int64{}
	if ex.protos == nil {
		return out // the fasthttp engine: HTTP/1.1 only, not counted
	}
	for i, t := range ex.s.Targets {
		pc := &ex.protos[i]
		m := map[string]int64{}
		if n := pc.http1.Load(); n > 0 {
			m["http/1.1"] = n
		}
		if n := pc.h2.Load(); n > 0 {
			name := "h2"
			if t.Protocol == compile.ProtocolH2C {
				name = "h2c"
			}
			m[name] = n
		}
		if n := pc.websocket.Load(); n > 0 {
			m["websocket"] = n
		}
		if len(m) > 0 {
			out[t.Name] = m
		}
	}
	return out
}
