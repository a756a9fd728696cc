package fast

import (
	"strings"

	"github.com/valyala/fasthttp"

	"github.com/tressi/tressi/compile"
	"github.com/tressi/tressi/exec/internal/run"
)

// The fasthttp engine's side of cookies (run/cookies.go): a request's Cookie
// header from the jar, and a response's Set-Cookie into it.

// addCookies adds store's cookies for the request to req, keeping a
// Cookie header the plan set (fasthttp holds request cookies by name, so
// a jar cookie of the same name replaces the plan's). buf is scratch.
func addCookies(req *fasthttp.Request, store run.CookieStore, host string, secure bool, buf []byte) ([]byte, bool) {
	buf, ok := store.AppendHeader(buf[:0], host, req.URI().PathOriginal(), secure, run.CookieNow())
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
func (w *worker) endpointCookies(entry int) run.CookieStore {
	if w.Ex.Cookies.Modes[entry] == compile.CookiesShared {
		return w.Ex.Cookies.Shared
	}
	return nil
}

// exchangeCookies is exchange with the request's cookies from store added
// and its response's stored there (store nil: exchange itself). A static
// request's copy that got cookies is dropped after the send, so the next
// send of it starts from the plan's request again.
func (w *worker) exchangeCookies(client *fasthttp.HostClient, req *fasthttp.Request, pr *run.PreparedRequest, k uint64, scheduled int64, store run.CookieStore) (int64, error) {
	w.lastTarget = pr.Spec.Target
	if pr.Spec.Redirects > 0 {
		return w.exchangeChain(client, req, pr, k, scheduled, store)
	}
	if store == nil {
		return w.exchange(client, req, pr, k, scheduled)
	}
	t := pr.Spec.Target
	host, secure := w.Ex.Cookies.Hosts[t], w.Ex.Cookies.Secure[t]
	var added bool
	w.cbuf, added = addCookies(req, store, host, secure, w.cbuf)
	w.cpath = append(w.cpath[:0], req.URI().PathOriginal()...)
	if added && req == &w.sreq {
		w.static = nil
	}
	done, err := w.exchange(client, req, pr, k, scheduled)
	if err == nil {
		store.SetFromHead(w.resp.Header.Header(), host, w.cpath, secure, run.CookieNow())
	}
	return done, err
}

// cookieStore is where entry's sessions keep cookies: the runner's jar,
// the run's shared one, or none.
func (r *sessionRunner) cookieStore(entry int) run.CookieStore {
	switch r.w.Ex.Cookies.Modes[entry] {
	case compile.CookiesSession:
		return &r.jar
	case compile.CookiesShared:
		return r.w.Ex.Cookies.Shared
	}
	return nil
}
