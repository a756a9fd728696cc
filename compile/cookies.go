package compile

import "github.com/tressi/tressi/plan"

// entryCookies is a scenario's Entry.Cookies: "" for the default, a jar
// per session.
func entryCookies(sc *plan.Scenario) string { return sc.Cookies }

// Jar is where e's cookies are kept: CookiesSession, CookiesShared or
// CookiesOff. An HTTP scenario's sessions keep a jar each unless the plan
// says otherwise; an endpoint keeps none unless it says shared; a
// WebSocket session keeps none (its upgrade sends no Cookie header, so its
// HTTP steps keep none for it; docs/plan.md says so).
func (e *Entry) Jar() string {
	switch {
	case e.Cookies == CookiesShared && !e.WebSocket:
		return CookiesShared
	case e.Cookies != "" || !e.Scenario || e.WebSocket:
		return CookiesOff
	}
	return CookiesSession
}
