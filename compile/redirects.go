package compile

import (
	"github.com/hashicorp/hcl/v2"

	"github.com/tressi/tressi/plan"
)

// redirects is how many hops r follows: its own count, else its target's.
func redirects(r *plan.Request, t *plan.Target) int {
	if r.Redirects != plan.RedirectsUnset {
		return r.Redirects
	}
	return t.Redirects
}

// grpcRedirects refuses redirects on a gRPC call, which answers with
// codes, never a Location; a gRPC target's own redirects are dropped.
func grpcRedirects(r *plan.Request, req *Request) hcl.Diagnostics {
	if req.GRPC == nil {
		return nil
	}
	req.Redirects = 0
	if r.Redirects > 0 {
		return errorAt(r.DeclRange, "Invalid redirects", "redirects applies to HTTP requests; a gRPC call answers with a code, never a redirect: remove it.")
	}
	return nil
}

// wsRedirects refuses redirects on a step of a WebSocket scenario, whose
// HTTP steps answer once; its target's redirects do not apply to them.
func wsRedirects(sc *plan.Scenario, e *Entry) hcl.Diagnostics {
	if !e.WebSocket {
		return nil
	}
	for _, st := range sc.Steps {
		if st.Request.Redirects > 0 {
			return errorAt(st.DeclRange, "Invalid redirects", "redirects is not followed in a WebSocket scenario (its HTTP steps and its connect answer once): remove it, or move the HTTP requests to a scenario of their own.")
		}
	}
	return nil
}
