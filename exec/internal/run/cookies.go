package run

import (
	"strings"
	"time"

	"github.com/valyala/fasthttp"

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
// response to target at path (ok false: without a complete 2xx/3xx
// response they are missing, as every capture is).
func (ss *SessionStep) CookieCapture(captured [][]byte, have []bool, store CookieStore, rc *RunCookies, target int, path []byte, ok bool) {
	if !ss.ReadsCookies {
		return
	}
	now := CookieNow()
	for i := range ss.Capture {
		c := &ss.Capture[i]
		name, isCookie := c.Cookie()
		if !isCookie {
			continue
		}
		have[c.Index] = false
		if !ok || store == nil {
			continue
		}
		if v, found := store.Get(name, rc.Hosts[target], string(path), rc.Secure[target], now); found && v != "" {
			captured[c.Index], have[c.Index] = append(captured[c.Index][:0], v...), true
		}
	}
}

// fasthttp's side: a request's Cookie header from the jar, and a
// response's Set-Cookie into it.

// addCookies adds store's cookies for the request to req, keeping a
// Cookie header the plan set (fasthttp holds request cookies by name, so
// a jar cookie of the same name replaces the plan's). buf is scratch.
func addCookies(req *fasthttp.Request, store CookieStore, host string, secure bool, buf []byte) ([]byte, bool) {
	buf, ok := store.AppendHeader(buf[:0], host, req.URI().PathOriginal(), secure, CookieNow())
	if !ok {
		return buf, false
	}
	for rest := buf; len(rest) > 0; {
		pair := rest
		if i := strings.Index(string(rest), "; "); i >= 0 {
			pair, rest = rest[:i], rest[i+2:]
		} else {
			rest = nil
		}
		if eq := strings.IndexByte(string(pair), '='); eq > 0 {
			req.Header.SetCookieBytesKV(pair[:eq], pair[eq+1:])
		}
	}
	return buf, true
}

// endpointCookies is the run's shared jar when the endpoint entry keeps
// cookies there, nil otherwise.
func (w *worker) endpointCookies(entry int) CookieStore {
	if w.ex.Cookies.Modes[entry] == compile.CookiesShared {
		return w.ex.Cookies.Shared
	}
	return nil
}

// exchangeCookies is exchange with the request's cookies from store added
// and its response's stored there (store nil: exchange itself). A static
// request's copy that got cookies is dropped after the send, so the next
// send of it starts from the plan's request again.
func (w *worker) exchangeCookies(client *fasthttp.HostClient, req *fasthttp.Request, pr *PreparedRequest, k uint64, scheduled int64, store CookieStore) (int64, error) {
	if store == nil {
		return w.exchange(client, req, pr, k, scheduled)
	}
	t := pr.Spec.Target
	host, secure := w.ex.Cookies.Hosts[t], w.ex.Cookies.Secure[t]
	var added bool
	w.cbuf, added = addCookies(req, store, host, secure, w.cbuf)
	w.cpath = append(w.cpath[:0], req.URI().PathOriginal()...)
	if added && req == &w.sreq {
		w.static = nil
	}
	done, err := w.exchange(client, req, pr, k, scheduled)
	if err == nil {
		store.SetFromHead(w.resp.Header.Header(), host, w.cpath, secure, CookieNow())
	}
	return done, err
}

// cookieStore is where entry's sessions keep cookies: the runner's jar,
// the run's shared one, or none.
func (r *sessionRunner) cookieStore(entry int) CookieStore {
	switch r.w.ex.Cookies.Modes[entry] {
	case compile.CookiesSession:
		return &r.jar
	case compile.CookiesShared:
		return r.w.ex.Cookies.Shared
	}
	return nil
}
