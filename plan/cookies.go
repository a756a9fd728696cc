package plan

import (
	"fmt"

	"github.com/hashicorp/hcl/v2"
)

// Cookie modes: where a request's cookies are kept (RFC 6265 jars).
const (
	// CookiesSession gives each scenario session a jar of its own: what a
	// response sets, the session's later requests send. The scenario default.
	CookiesSession = "session"
	// CookiesOff keeps no cookie: Set-Cookie is ignored. The endpoint default.
	CookiesOff = "off"
	// CookiesShared is one jar for the whole run, every session and endpoint
	// that asks for it: a logged-in browser's cookies, shared by all users.
	CookiesShared = "shared"
)

// decodeCookies reads a scenario's or an endpoint's cookies attribute.
// Endpoints have no session, so their choice is off (the default) or
// shared; "" means the default of the block.
func (l *loader) decodeCookies(attrs hcl.Attributes, endpoint bool) (string, hcl.Diagnostics) {
	if !endpoint {
		mode, diags := l.enumAttr(attrs, "cookies", CookiesSession, CookiesOff, CookiesShared)
		if mode == CookiesSession {
			mode = "" // the default: plans that say so hash as those that do not
		}
		return mode, diags
	}
	mode, diags := l.enumAttr(attrs, "cookies", CookiesOff, CookiesShared, CookiesSession)
	switch mode {
	case CookiesOff:
		return "", diags
	case CookiesSession:
		attr := attrs["cookies"]
		return "", append(diags, attrError(attr, "Invalid cookies", fmt.Sprintf("an endpoint's requests belong to no session, so they cannot keep %q cookies: use \"shared\" (one jar for the run) or a scenario.", CookiesSession)))
	}
	return mode, diags
}

// checkCookieCaptures refuses cookie() captures where the session keeps
// no jar to read them from: cookies = "off", or a WebSocket session.
func checkCookieCaptures(s *Scenario, websocket bool) hcl.Diagnostics {
	var diags hcl.Diagnostics
	for _, st := range s.Steps {
		for _, c := range st.Captures {
			if c.Kind != CaptureCookie {
				continue
			}
			why := ""
			switch {
			case websocket:
				why = "a WebSocket session keeps no cookie jar; capture the header instead, with header(\"Set-Cookie\") and a regex"
			case s.Cookies == CookiesOff:
				why = "the scenario says cookies = \"off\"; remove that line to keep a jar per session"
			default:
				continue
			}
			rng := c.DeclRange
			diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Invalid capture",
				Detail: fmt.Sprintf("capture %q reads a cookie from the session's jar, but %s.", c.Name, why), Subject: &rng})
		}
	}
	return diags
}
