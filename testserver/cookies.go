package testserver

import (
	"bytes"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/valyala/fasthttp"
)

// cookieSessions are the sessions of /cookie/login and /cookie/me: a login
// issues a fresh session cookie, and every authenticated request is
// counted against the cookie it carried, so a test can see one cookie per
// session and every request of a session carrying its own.
type cookieSessions struct {
	next     atomic.Uint64
	rejected atomic.Uint64
	mu       sync.Mutex
	uses     map[uint64]uint64 // session id → authenticated requests
}

// CookieName is the session cookie /cookie/login sets.
const CookieName = "sid"

var (
	prefixCookie    = []byte("/cookie/")
	cookieNameBytes = []byte(CookieName)
)

// CookieStats count the cookie-session routes (Stats.Cookies).
type CookieStats struct {
	// Logins counts the session cookies issued.
	Logins uint64 `json:"logins"`
	// Sessions counts the distinct session cookies seen on /cookie/me.
	Sessions uint64 `json:"sessions"`
	// Requests counts /cookie/me requests with a valid session cookie.
	Requests uint64 `json:"requests"`
	// Rejected counts /cookie/me requests without one (answered 401).
	Rejected uint64 `json:"rejected"`
	// MinUses and MaxUses are the fewest and most requests a session
	// cookie seen on /cookie/me made (0 when none was seen).
	MinUses uint64 `json:"min_uses"`
	MaxUses uint64 `json:"max_uses"`
}

// cookieRoute serves /cookie/login (any method: sets a new session cookie,
// Path=/, HttpOnly, and answers "ok"), /cookie/me ("ok" when the request
// carries a cookie a login issued, 401 otherwise) and /cookie/logout
// (deletes the cookie). Bodies are plain: bench/cookies runs them at
// thousands per second.
func (s *Server) cookieRoute(ctx *fasthttp.RequestCtx, what []byte) {
	c := &s.cookies
	switch string(what) {
	case "login":
		id := c.next.Add(1)
		c.mu.Lock()
		if c.uses == nil {
			c.uses = map[uint64]uint64{}
		}
		c.uses[id] = 0
		c.mu.Unlock()
		sid := strconv.FormatUint(id, 16)
		ctx.Response.Header.Add(fasthttp.HeaderSetCookie, CookieName+"="+sid+"; Path=/; HttpOnly; SameSite=Lax")
		ctx.Response.SetBodyRaw(bodyOK) // plain, as "/": the route is a benchmark's target
	case "me":
		id, ok := parseSession(ctx.Request.Header.CookieBytes(cookieNameBytes))
		if ok {
			c.mu.Lock()
			_, ok = c.uses[id]
			if ok {
				c.uses[id]++
			}
			c.mu.Unlock()
		}
		if !ok {
			c.rejected.Add(1)
			writeJSON(ctx, fasthttp.StatusUnauthorized, errorReply{"missing or unknown session cookie: log in at /cookie/login first"})
			return
		}
		ctx.Response.SetBodyRaw(bodyOK)
	case "logout":
		ctx.Response.Header.Add(fasthttp.HeaderSetCookie, CookieName+"=; Path=/; Max-Age=0")
		ctx.Response.SetBodyRaw(bodyOK)
	default:
		ctx.Error("not found\n", fasthttp.StatusNotFound)
	}
}

func parseSession(v []byte) (uint64, bool) {
	if len(v) == 0 || len(v) > 16 || bytes.ContainsAny(v, "+-") {
		return 0, false
	}
	id, err := strconv.ParseUint(string(v), 16, 64)
	return id, err == nil
}

func (c *cookieSessions) snapshot() CookieStats {
	st := CookieStats{Logins: c.next.Load(), Rejected: c.rejected.Load()}
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, n := range c.uses {
		if n == 0 {
			continue
		}
		st.Sessions++
		st.Requests += n
		if st.MinUses == 0 || n < st.MinUses {
			st.MinUses = n
		}
		st.MaxUses = max(st.MaxUses, n)
	}
	return st
}

func (c *cookieSessions) reset() {
	c.next.Store(0)
	c.rejected.Store(0)
	c.mu.Lock()
	c.uses = nil
	c.mu.Unlock()
}
