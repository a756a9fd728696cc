package run

import (
	"strings"
	"time"

	"github.com/tressi/tressi/compile"
	"github.com/tressi/tressi/internal/cookiejar"
)

// Cookies: each scenario session keeps a jar (internal/cookiejar) unless
// its plan says off or shared; endpoints keep none unless shared. Both
// engines fill a request's Cookie header from its jar as it goes out and
// store the Set-Cookie lines of its response head, so a session without
// cookies pays a length check per request.

// CookieStore is a session's own jar or the run's shared one.
type CookieStore interface {
	AppendRequest(dst, req []byte, host string, secure bool, now int64) ([]byte, bool)
	AppendHeader(dst []byte, host string, path []byte, secure bool, now int64) ([]byte, bool)
	SetFromHead(head []byte, host string, path []byte, secure bool, now int64) int
	Get(name, host, path string, secure bool, now int64) (string, bool)
}

var (
	_ CookieStore = (*cookiejar.Jar)(nil)
	_ CookieStore = (*cookiejar.Shared)(nil)
)

// RunCookies is what the run needs to keep cookies: each entry's mode,
// the shared jar when an entry asks for it, and each target's host as
// cookies are matched against it (the url's name, without port).
type RunCookies struct {
	Modes  []string // by entry: compile.CookiesSession, CookiesShared or CookiesOff
	Shared *cookiejar.Shared
	Hosts  []string // by target
	Secure []bool   // by target: https
}

// NewRunCookies reads s's cookie modes.
func NewRunCookies(s *compile.Schedule) RunCookies {
	rc := RunCookies{Modes: make([]string, len(s.Entries))}
	for i := range s.Entries {
		rc.Modes[i] = s.Entries[i].Jar()
		if rc.Modes[i] == compile.CookiesShared && rc.Shared == nil {
			rc.Shared = new(cookiejar.Shared)
		}
	}
	for _, t := range s.Targets {
		rc.Hosts = append(rc.Hosts, strings.ToLower(hostOnly(t.Host, t.Addr)))
		rc.Secure = append(rc.Secure, t.Scheme == "https")
	}
	return rc
}

// CookieNow is the jars' clock: cookies expire by the wall clock, in
// seconds, as servers date them.
func CookieNow() int64 { return time.Now().Unix() }

// CookieCapture fills the step's cookie() captures from store after its
// response to target at path (ok false, Succeeded's verdict: they are
// missing, as every capture is).
func (ss *Step) CookieCapture(c *Captured, store CookieStore, rc *RunCookies, target int, path []byte, ok bool) {
	if !ss.ReadsCookies {
		return
	}
	now := CookieNow()
	for i := range ss.Capture {
		cp := &ss.Capture[i]
		name, isCookie := cp.Cookie()
		if !isCookie {
			continue
		}
		c.Have[cp.Index] = false
		if !ok || store == nil {
			continue
		}
		if v, found := store.Get(name, rc.Hosts[target], string(path), rc.Secure[target], now); found && v != "" {
			c.Values[cp.Index], c.Have[cp.Index] = append(c.Values[cp.Index][:0], v...), true
		}
	}
}
