package plan

import (
	"fmt"
	"net"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"
)

// decodeResolve reads a target's resolve map (curl's --resolve): host names
// connected to at the address given instead of what DNS says, while the
// Host header and TLS's server name stay the real name. Names are compared
// case-insensitively, so they are kept lower-cased.
func (l *loader) decodeResolve(attrs hcl.Attributes, t *Target) hcl.Diagnostics {
	v, attr, diags := l.typed(attrs, "resolve", cty.Map(cty.String), scope{what: fmt.Sprintf("target %q resolve", t.Name)})
	if v == cty.NilVal {
		return diags
	}
	v, _ = v.UnmarkDeep()
	t.Resolve = map[string]string{}
	for it := v.ElementIterator(); it.Next(); {
		k, e := it.Element()
		name, addr := strings.ToLower(k.AsString()), e.AsString()
		if !validHostName(name) {
			diags = append(diags, attrError(attr, "Invalid resolve", fmt.Sprintf("%q is not a host name: write the name alone, without scheme or port, such as { \"api.example\" = \"127.0.0.1\" }.", k.AsString())))
			continue
		}
		ip := net.ParseIP(addr)
		if ip == nil {
			diags = append(diags, attrError(attr, "Invalid resolve", fmt.Sprintf("%q must map to an IP address such as \"127.0.0.1\" or \"::1\" (got %q); the port stays the url's.", k.AsString(), addr)))
			continue
		}
		if _, dup := t.Resolve[name]; dup {
			diags = append(diags, attrError(attr, "Invalid resolve", fmt.Sprintf("%q is listed twice (names are compared case-insensitively).", k.AsString())))
			continue
		}
		t.Resolve[name] = ip.String()
	}
	return diags
}

// validHostName reports whether s is a DNS name (letters, digits, '-', '_'
// and dots; no port, no scheme): what a URL's host holds when it is no
// address.
func validHostName(s string) bool {
	if s == "" || len(s) > 253 || net.ParseIP(s) != nil {
		return false
	}
	for _, label := range strings.Split(strings.TrimSuffix(s, "."), ".") {
		if label == "" || len(label) > 63 {
			return false
		}
		for _, c := range []byte(label) {
			if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
				return false
			}
		}
	}
	return true
}
