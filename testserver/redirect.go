package testserver

import (
	"strconv"

	"github.com/valyala/fasthttp"
)

var prefixRedirect = []byte("/redirect/")

// redirect answers /redirect/N: for N > 0 a redirect to /redirect/N-1 (the
// query kept), for N = 0 "ok". ?code= chooses the status (301, 302, 303,
// 307 or 308; default 302); ?to= is where the last hop (N = 1) points
// instead of /redirect/0: a path, or an absolute URL on another origin;
// ?rel=1 makes each Location relative ("N-1?…"), as some servers write it.
func (s *Server) redirect(ctx *fasthttp.RequestCtx, arg []byte) {
	n, ok := parseUint(arg)
	if !ok {
		ctx.Error("redirect takes a whole number of hops, such as /redirect/3\n", fasthttp.StatusBadRequest)
		return
	}
	if n == 0 {
		ctx.Response.SetBodyRaw(bodyOK)
		return
	}
	args := ctx.QueryArgs()
	code := fasthttp.StatusFound
	if c := args.Peek("code"); len(c) > 0 {
		code, ok = parseUint(c)
		if !ok || !(code >= 301 && code <= 303 || code == 307 || code == 308) {
			ctx.Error("code must be 301, 302, 303, 307 or 308\n", fasthttp.StatusBadRequest)
			return
		}
	}
	loc := ""
	if to := args.Peek("to"); n == 1 && len(to) > 0 {
		loc = string(to)
	} else {
		loc = "/redirect/" + strconv.Itoa(n-1)
		if len(args.Peek("rel")) > 0 {
			loc = strconv.Itoa(n - 1)
		}
		if q := ctx.URI().QueryString(); len(q) > 0 {
			loc += "?" + string(q)
		}
	}
	ctx.Response.Header.Set(fasthttp.HeaderLocation, loc)
	ctx.SetStatusCode(code)
}

// host answers /host with the Host header it received, so a test sees
// the virtual host a generator asked for.
func (s *Server) host(ctx *fasthttp.RequestCtx) {
	ctx.SetBodyString(string(ctx.Host()) + "\n")
}
