package testserver

import (
	"bytes"
	"encoding/json"
	"time"

	"github.com/valyala/fasthttp"
)

// Path prefixes and fixed bodies, as byte slices so routing compares without
// converting the request path to a string.
var (
	prefixStatus = []byte("/status/")
	prefixDelay  = []byte("/delay/")
	prefixBytes  = []byte("/bytes/")
	pathEcho     = []byte("/echo")
	pathLogin    = []byte("/login")
	pathMe       = []byte("/me")
	pathStats    = []byte("/__stats")
	pathHost     = []byte("/host")
	pathJSON     = []byte("/json")

	bodyOK      = []byte("ok\n")
	typeJSON    = []byte("application/json")
	typeOctet   = []byte("application/octet-stream")
	bearer      = []byte("bearer ")
	headerAllow = "Allow"
)

// handle routes one request. "/" is checked first and touches nothing but
// two atomic counters and the pre-built body: it is the benchmark route.
func (s *Server) handle(ctx *fasthttp.RequestCtx) {
	if s.log != nil {
		s.log.add(ctx)
	}
	path := ctx.Path()
	if len(path) == 1 && path[0] == '/' {
		s.counters.count(RouteRoot)
		s.waitStall()
		s.root(ctx)
		return
	}
	if bytes.Equal(path, pathStats) {
		s.stats(ctx) // uncounted and never stalled: it observes the others
		return
	}
	r := routeOf(path)
	s.counters.count(r)
	s.waitStall()
	switch r {
	case RouteStatus:
		s.status(ctx, path[len(prefixStatus):])
	case RouteDelay:
		s.delay(ctx, path[len(prefixDelay):])
	case RouteEcho:
		s.echo(ctx)
	case RouteLogin:
		s.login(ctx)
	case RouteMe:
		s.me(ctx)
	case RouteBytes:
		s.bytes(ctx, path[len(prefixBytes):])
	case RouteWSEcho:
		s.wsEcho(ctx)
	case RouteTinode:
		s.tinodeChannel(ctx)
	case RouteQueue:
		s.queue(ctx)
	case RouteFault:
		s.fault(ctx, path)
	case RouteUpload:
		s.upload(ctx)
	case RouteBrowse:
		s.browse(ctx)
	case RouteCookie:
		s.cookieRoute(ctx, path[len(prefixCookie):])
	case RouteRedirect:
		s.redirect(ctx, path[len(prefixRedirect):])
	case RouteBasic:
		s.basicAuth(ctx, path[len(prefixBasicAuth):])
	case RouteDigest:
		s.digestAuth(ctx, path[len(prefixDigestAuth):])
	case RouteHost:
		s.host(ctx)
	case RouteJSON:
		s.json(ctx)
	default:
		ctx.Error("not found\n", fasthttp.StatusNotFound)
	}
}

func routeOf(path []byte) Route {
	switch {
	case bytes.HasPrefix(path, prefixStatus):
		return RouteStatus
	case bytes.HasPrefix(path, prefixDelay):
		return RouteDelay
	case bytes.HasPrefix(path, prefixBytes):
		return RouteBytes
	case bytes.Equal(path, pathEcho):
		return RouteEcho
	case bytes.Equal(path, pathLogin):
		return RouteLogin
	case bytes.Equal(path, pathMe):
		return RouteMe
	case bytes.Equal(path, pathWSEcho):
		return RouteWSEcho
	case bytes.Equal(path, pathChannels):
		return RouteTinode
	case bytes.Equal(path, pathQueue):
		return RouteQueue
	case bytes.HasPrefix(path, prefixFault):
		return RouteFault
	case bytes.Equal(path, pathUpload):
		return RouteUpload
	case bytes.Equal(path, pathBrowse):
		return RouteBrowse
	case bytes.HasPrefix(path, prefixCookie):
		return RouteCookie
	case bytes.HasPrefix(path, prefixRedirect):
		return RouteRedirect
	case bytes.HasPrefix(path, prefixBasicAuth):
		return RouteBasic
	case bytes.HasPrefix(path, prefixDigestAuth):
		return RouteDigest
	case bytes.Equal(path, pathHost):
		return RouteHost
	case bytes.Equal(path, pathJSON):
		return RouteJSON
	}
	return RouteNotFound
}

// root answers GET / with "ok\n". SetBodyRaw shares the package-level body
// instead of copying it: no allocation and no copy per request.
func (s *Server) root(ctx *fasthttp.RequestCtx) {
	if !allowMethod(ctx, "GET, HEAD", ctx.IsGet() || ctx.IsHead()) {
		return
	}
	ctx.Response.SetBodyRaw(bodyOK)
}

// status answers with the status named in the path, 100..599. A 1xx status is
// sent as is: HTTP clients treat it as interim and keep waiting for a final
// response that never comes, which is how to test a client's timeout.
func (s *Server) status(ctx *fasthttp.RequestCtx, arg []byte) {
	code, ok := parseUint(arg)
	if !ok || code < 100 || code > 599 {
		ctx.Error("status must be a number in 100..599\n", fasthttp.StatusBadRequest)
		return
	}
	ctx.SetStatusCode(code)
	ctx.SetBodyString(fasthttp.StatusMessage(code) + "\n")
}

// delay answers after the number of milliseconds in the path, clamped to
// MaxDelay. The wait ends early when the server closes.
func (s *Server) delay(ctx *fasthttp.RequestCtx, arg []byte) {
	ms, ok := parseUint(arg)
	if !ok {
		ctx.Error("delay must be a whole number of milliseconds\n", fasthttp.StatusBadRequest)
		return
	}
	// parseUint's 9 digits keep the product far from overflow.
	s.sleep(min(time.Duration(ms)*time.Millisecond, s.opts.MaxDelay))
	ctx.Response.SetBodyRaw(bodyOK)
}

// bytes answers with n bytes of a fixed pattern, clamped to MaxBytes. Small
// payloads share the pattern buffer; larger ones stream it, so a 64 MiB
// response costs 64 KiB of memory however many are in flight.
func (s *Server) bytes(ctx *fasthttp.RequestCtx, arg []byte) {
	n, ok := parseUint(arg)
	if !ok {
		ctx.Error("size must be a whole number of bytes\n", fasthttp.StatusBadRequest)
		return
	}
	n = min(n, s.opts.MaxBytes)
	ctx.SetContentTypeBytes(typeOctet)
	if n <= len(pattern) {
		ctx.Response.SetBodyRaw(pattern[:n])
		return
	}
	ctx.SetBodyStream(&patternReader{left: n}, n)
}

// stats answers with the counters as JSON.
func (s *Server) stats(ctx *fasthttp.RequestCtx) {
	writeJSON(ctx, fasthttp.StatusOK, s.Stats())
}

// allowMethod answers 405 with an Allow header unless ok.
func allowMethod(ctx *fasthttp.RequestCtx, allow string, ok bool) bool {
	if ok {
		return true
	}
	ctx.Response.Header.Set(headerAllow, allow)
	ctx.Error("method not allowed\n", fasthttp.StatusMethodNotAllowed)
	return false
}

func writeJSON(ctx *fasthttp.RequestCtx, status int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		ctx.Error("internal error\n", fasthttp.StatusInternalServerError)
		return
	}
	ctx.SetStatusCode(status)
	ctx.SetContentTypeBytes(typeJSON)
	ctx.SetBody(append(b, '\n'))
}

// parseUint parses a decimal number of at most 9 digits: enough for every
// argument the routes take, and small enough that it cannot overflow.
func parseUint(b []byte) (int, bool) {
	if len(b) == 0 || len(b) > 9 {
		return 0, false
	}
	n := 0
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int(c-'0')
	}
	return n, true
}
