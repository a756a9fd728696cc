package plan

import (
	"fmt"

	"github.com/hashicorp/hcl/v2"
)

// MaxRedirects bounds redirects: a chain longer than this is a loop, not
// a site (browsers stop near 20, Go's client at 10, k6 at 10).
const MaxRedirects = 20

// RedirectsUnset is a request's Redirects when it does not say: the
// target's count applies.
const RedirectsUnset = -1

// decodeRedirects reads redirects on a target, an endpoint or a step: how
// many 3xx hops a request follows (0, the default, follows none), or
// RedirectsUnset when the attribute is absent.
func (l *loader) decodeRedirects(attrs hcl.Attributes, what string) (int, hcl.Diagnostics) {
	n, attr, diags := l.intAttr(attrs, "redirects")
	if attr == nil {
		return RedirectsUnset, diags
	}
	if n < 0 || n > MaxRedirects {
		return RedirectsUnset, append(diags, attrError(attr, "Invalid redirects",
			fmt.Sprintf("%s: redirects is how many redirects a request follows, from 0 (none) to %d (got %d).", what, MaxRedirects, n)))
	}
	return int(n), diags
}
