package run

import (
	"sync/atomic"

	"github.com/tressi/tressi/compile"
)

// ProtocolCounts counts one target's connections by the protocol they
// spoke, which for protocol = "auto" the server chose (ALPN).
type ProtocolCounts struct {
	Http1, H2, Websocket atomic.Int64
}

// ConnProtocols is meta.json's "protocols": by target, how many
// connections spoke each protocol ("http/1.1", "h2", "h2c", "websocket":
// upgraded), so it names what a run of the one loop actually spoke.
func (ex *Executor) ConnProtocols() map[string]map[string]int64 {
	out := map[string]map[string]int64{}
	if ex.Protos == nil {
		return out // the fasthttp engine: HTTP/1.1 only, not counted
	}
	for i, t := range ex.S.Targets {
		pc := &ex.Protos[i]
		m := map[string]int64{}
		if n := pc.Http1.Load(); n > 0 {
			m["http/1.1"] = n
		}
		if n := pc.H2.Load(); n > 0 {
			name := "h2"
			if t.Protocol == compile.ProtocolH2C {
				name = "h2c"
			}
			m[name] = n
		}
		if n := pc.Websocket.Load(); n > 0 {
			m["websocket"] = n
		}
		if len(m) > 0 {
			out[t.Name] = m
		}
	}
	return out
}
