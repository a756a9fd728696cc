package fast

import (
	"github.com/valyala/fasthttp"

	"github.com/tressi/tressi/exec/internal/run"
)

// The fasthttp engine's side of redirects (run/redirect.go): a request
// with redirects = N sends each hop itself (fasthttp's own following
// would hide the hops from the meter and ignore the plan's targets), and
// records one row when the chain ends, its figures every hop's.

// hopChain is what the earlier hops of the request being sent left.
type hopChain struct {
	hops                   int
	sent, out, in, connect int64
	stop                   error // why it ended on a redirect it did not follow
}

// take adds one answered hop's meter to the chain.
func (c *hopChain) take(m *run.Meter) {
	if c.hops == 0 {
		c.sent = m.Sent
	}
	c.out, c.in, c.connect = c.out+m.Out, c.in+m.In, max(c.connect, m.Connect)
	c.hops++
}

// fold is a row's figures with the chain's earlier hops added.
func (c *hopChain) fold(sent, out, in, connect int64) (int64, int64, int64, int64) {
	if c.hops == 0 {
		return sent, out, in, connect
	}
	return c.sent, out + c.out, in + c.in, max(connect, c.connect)
}

// exchangeChain is exchangeCookies for a request that follows redirects:
// each hop goes to the client of the target its Location names, with the
// cookies of store for it, and the last one is recorded with the chain.
func (w *worker) exchangeChain(client *fasthttp.HostClient, req *fasthttp.Request, pr *run.PreparedRequest, k uint64, scheduled int64, store run.CookieStore) (int64, error) {
	ex := w.Ex
	t, cross, first := pr.Spec.Target, false, req
	w.chain = hopChain{}
	for {
		if store != nil {
			var added bool
			w.cbuf, added = addCookies(req, store, ex.Cookies.Hosts[t], ex.Cookies.Secure[t], w.cbuf)
			w.cpath = append(w.cpath[:0], req.URI().PathOriginal()...)
			if added && first == &w.sreq {
				w.static = nil
			}
		}
		w.lastTarget = t
		done, err := w.exchangeHop(client, req, pr, k, scheduled)
		if err != nil {
			return done, err
		}
		if store != nil {
			store.SetFromHead(w.resp.Header.Header(), ex.Cookies.Hosts[t], w.cpath, ex.Cookies.Secure[t], run.CookieNow())
		}
		status := w.resp.StatusCode()
		loc := w.resp.Header.Peek(fasthttp.HeaderLocation)
		if !run.IsRedirect(status) || len(loc) == 0 || ex.Aborted.Load() {
			return w.recordChain(pr, k, scheduled, done, nil)
		}
		if w.chain.hops >= pr.Spec.Redirects {
			return w.recordChain(pr, k, scheduled, done, &run.ErrTooManyRedirects{Hops: w.chain.hops, Location: string(loc)})
		}
		to, path, ok := ex.Redirects.Resolve(t, req.RequestURI(), loc, w.rpath[:0])
		w.rpath = path
		if !ok {
			return w.recordChain(pr, k, scheduled, done, &run.ErrRedirectRefused{Location: string(loc)})
		}
		if m, ok := w.resp.LocalAddr().(*run.Meter); ok {
			w.chain.take(m)
			m.Release()
		} else {
			w.chain.hops++
		}
		if int(pr.Endpoint) < len(ex.Hops) {
			ex.Hops[pr.Endpoint].Add(1)
		}
		cross = cross || to != pr.Spec.Target
		req = w.nextHop(req, status, to, t != to, cross, path)
		if to != t {
			client = ex.Cl.Hosts[to]
		}
		t = to
	}
}

// nextHop is the request of the hop a status redirects req to: path on
// target to; moved: another target than req's (its Host); cross: off
// the request's first origin, so credentials stay behind. The two hop
// requests take turns, so req stays whole while its successor is built.
func (w *worker) nextHop(req *fasthttp.Request, status, to int, moved, cross bool, path []byte) *fasthttp.Request {
	next := &w.hopReqs[w.chain.hops%2]
	req.CopyTo(next)
	method, keepBody := run.RedirectMethod(status, string(req.Header.Method()))
	tg := &w.Ex.S.Targets[to]
	w.ubuf = append(append(append(append(w.ubuf[:0], tg.Scheme...), "://"...), tg.Host...), path...)
	next.SetRequestURIBytes(w.ubuf)
	next.Header.SetMethod(method)
	if moved {
		next.Header.SetHost(tg.Host)
	}
	if !keepBody {
		next.ResetBody()
		next.Header.Del(fasthttp.HeaderContentLength) // else the POST's length is written again
		next.Header.Del(fasthttp.HeaderContentType)
		next.Header.Del(fasthttp.HeaderContentEncoding)
		next.Header.Del(fasthttp.HeaderTransferEncoding)
	}
	if cross {
		next.Header.Del(fasthttp.HeaderAuthorization)
		next.Header.Del(fasthttp.HeaderProxyAuthorization)
		next.Header.DelAllCookies()
	}
	return next
}

// recordChain records the chain that ended with w.resp at done; stop is
// why it ended on a redirect (nil: on an answer).
func (w *worker) recordChain(pr *run.PreparedRequest, k uint64, scheduled, done int64, stop error) (int64, error) {
	w.chain.stop = stop
	w.record(pr, k, scheduled, done, nil)
	return done, nil
}
