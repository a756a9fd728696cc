package compile

import (
	"strings"

	"github.com/tressi/tressi/plan"
)

// digestAuth is the digest_auth a request answers challenges with: its
// own, else its target's; nil for none. A request with its own basic_auth
// or Authorization header does not inherit the target's digest_auth.
func digestAuth(r *plan.Request, t *plan.Target) *DigestAuth {
	c := r.DigestAuth
	if c == nil {
		for _, h := range r.Headers {
			if strings.EqualFold(h.Name, "Authorization") {
				return nil
			}
		}
		c = t.DigestAuth
	}
	if c == nil {
		return nil
	}
	return &DigestAuth{Username: c.Username, Password: c.Password}
}
