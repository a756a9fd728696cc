package loop

import (
	"github.com/tressi/tressi/compile"
	"github.com/tressi/tressi/exec/internal/run"
)

// transportFor is the factory of target t's loop connections; nil for
// plain HTTP and ws://. upgrade: the connections carry WebSocket upgrades,
// which are HTTP/1.1, so ALPN offers nothing, as for HTTP/1.1 targets.
func transportFor(ex *run.Executor, t *compile.Target, upgrade bool) run.TransportFactory {
	if ex.Transport != nil {
		return ex.Transport
	}
	if t.Scheme != "https" {
		return nil
	}
	offer := alpnOffer(t.Protocol)
	if upgrade {
		offer = nil
	}
	return tlsTransport(ex, t, offer)
}

// alpnOffer is what a target's TLS handshake offers by ALPN: h2 alone for
// protocol "h2", h2 then HTTP/1.1 for "auto" (the server chooses), nothing
// for HTTP/1.1 targets (as before protocols existed).
func alpnOffer(protocol string) []string {
	switch protocol {
	case compile.ProtocolH2:
		return []string{"h2"}
	case compile.ProtocolAuto:
		return []string{"h2", "http/1.1"}
	}
	return nil
}
