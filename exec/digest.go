package exec

import (
	"fmt"

	"github.com/tressi/tressi/compile"
)

// Digest authentication (RFC 7616, internal/digest) is answered by the
// loop engine over HTTP/1.1: a request with digest_auth that gets a 401
// with a Digest challenge goes out again on the same connection with its
// answer, and the one row covers both exchanges (loop/digest_linux.go). The
// session (for an endpoint, the loop) keeps the answerer, so its later
// requests answer up front and pay no second round trip until the server
// challenges again (a stale nonce).

// digestUnfit says why s's digest_auth cannot be answered, or "".
func digestUnfit(s *compile.Schedule, engine string) string {
	for i := range s.Requests {
		r := &s.Requests[i]
		if r.Digest == nil {
			continue
		}
		switch t := &s.Targets[r.Target]; {
		case engine == EngineFasthttp:
			return fmt.Sprintf("request %q has digest_auth, which the loop engine answers and fasthttp does not; leave the engine unset", r.Name)
		case t.Protocol != "":
			return fmt.Sprintf("request %q has digest_auth, answered over HTTP/1.1 only, and its target %q may speak HTTP/2 (protocol = %q); set protocol = \"http1\"", r.Name, t.Name, t.Protocol)
		}
	}
	for _, e := range s.Entries {
		if !e.WebSocket {
			continue
		}
		for _, st := range e.Steps {
			if st.Request >= 0 && st.Request < len(s.Requests) && s.Requests[st.Request].Digest != nil {
				return fmt.Sprintf("step %q of the WebSocket scenario %q has digest_auth, which WebSocket sessions do not answer", st.Name, e.Name)
			}
		}
	}
	return ""
}
