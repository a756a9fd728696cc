package loop

import (
	"github.com/tressi/tressi/compile"
	"github.com/tressi/tressi/exec/internal/run"
	"github.com/tressi/tressi/internal/cookiejar"
)

// The loop's side of cookies (run/cookies.go): a job's jar, its request's
// Cookie header, its response's Set-Cookie.

// cookieStore is where j's cookies are kept: its session's jar, the run's
// shared jar, or nil (none: WebSocket sessions, endpoints by default).
func (l *evloop) cookieStore(j *ljob) run.CookieStore {
	if j.ws {
		return nil
	}
	switch l.ex.Cookies.Modes[j.entry] {
	case compile.CookiesSession:
		if j.st != nil {
			return &l.sessions[j.sess].jar
		}
	case compile.CookiesShared:
		return l.ex.Cookies.Shared
	}
	return nil
}

// withCookies is wire, j's request, with the cookies of j's jar for it
// added (copied into *buf), or wire itself when the job keeps no cookies
// or none matches. It notes the request's path in resp for keepCookies.
func (l *evloop) withCookies(j *ljob, wire []byte, buf *[]byte, resp *lresponse) []byte {
	store := l.cookieStore(j)
	if store == nil {
		return wire
	}
	resp.reqPath = append(resp.reqPath[:0], cookiejar.RequestPath(wire)...)
	t := j.target()
	b, ok := store.AppendRequest((*buf)[:0], wire, l.ex.Cookies.Hosts[t], l.ex.Cookies.Secure[t], run.CookieNow())
	if !ok {
		return wire
	}
	*buf = b
	return b
}

// keepCookies stores the Set-Cookie lines of resp, j's answer, in j's jar.
func (l *evloop) keepCookies(j *ljob, resp *lresponse) {
	store := l.cookieStore(j)
	if store == nil || len(resp.Head) == 0 {
		return
	}
	t := j.target()
	store.SetFromHead(resp.Head, l.ex.Cookies.Hosts[t], resp.reqPath, l.ex.Cookies.Secure[t], run.CookieNow())
}
