package testserver

import (
	"net"
	"sync/atomic"

	"github.com/valyala/fasthttp"
)

// Route names a family of paths; Stats counts requests per route.
type Route uint8

// The routes, in the order Stats reports them.
const (
	RouteRoot     Route = iota // GET /
	RouteStatus                // /status/{code}
	RouteDelay                 // /delay/{ms}
	RouteEcho                  // /echo
	RouteLogin                 // /login
	RouteMe                    // /me
	RouteBytes                 // /bytes/{n}
	RouteWSEcho                // /ws/echo (WebSocket)
	RouteTinode                // /v0/channels (WebSocket, Tinode's protocol)
	RouteQueue                 // /queue?service=DURATION
	RouteFault                 // /fault/... (misbehaviours, faults.go)
	RouteUpload                // /upload (multipart, form and binary bodies, upload.go)
	RouteBrowse                // /browse (a scripted page to record a HAR from, browse.go)
	RouteCookie                // /cookie/login, /cookie/me, /cookie/logout (cookies.go)
	RouteRedirect              // /redirect/{n} (redirect.go)
	RouteBasic                 // /basic-auth/{user}/{pass} (challenge.go)
	RouteDigest                // /digest-auth/auth/{user}/{pass}[/{alg}] (challenge.go)
	RouteHost                  // /host: the Host header received
	RouteJSON                  // /json[?pad=N&chunked=1]: a known JSON document (jsonbody.go)
	RouteNotFound              // anything else
	numRoutes
)

var routeNames = [numRoutes]string{"root", "status", "delay", "echo", "login", "me", "bytes", "ws_echo", "tinode", "queue", "fault", "upload", "browse", "cookie", "redirect", "basic_auth", "digest_auth", "host", "json", "not_found"}

// String returns the route's name as used in Stats.Routes and /__stats.
func (r Route) String() string {
	if r < numRoutes {
		return routeNames[r]
	}
	return "unknown"
}

// Stats is a snapshot of what the server has received.
type Stats struct {
	// Requests counts every request received on any route, including 404s
	// and rejected methods. Reading /__stats is not counted, so a test can
	// poll it without disturbing the figure it checks.
	Requests uint64 `json:"requests"`
	// Routes counts requests per route name (see Route.String).
	Routes map[string]uint64 `json:"routes"`
	// ConnsAccepted counts connections accepted since the start.
	ConnsAccepted uint64 `json:"conns_accepted"`
	// ConnsOpen is the number of connections open right now.
	ConnsOpen int64 `json:"conns_open"`
	// ConnsPeak is the largest number of connections open at once.
	ConnsPeak int64 `json:"conns_peak"`
	// WSMessages counts WebSocket data messages received on any route (the
	// upgrades count as requests): a meter for WebSocket benchmarks that
	// does not take the generator's word.
	WSMessages uint64 `json:"ws_messages"`
	// Cookies counts the cookie-session routes (cookies.go).
	Cookies CookieStats `json:"cookies"`
}

// counters are the live atomic counters behind Stats. Each sits on its own
// cache line: the hot "/" counter is bumped by every handler goroutine, and
// false sharing with the connection counters would make the target the
// bottleneck of the benchmarks it serves.
type counters struct {
	requests padded
	routes   [numRoutes]padded
	accepted padded
	open     padded
	peak     padded
	messages padded
}

type padded struct {
	n atomic.Int64
	_ [56]byte
}

func (c *counters) count(r Route) {
	c.requests.n.Add(1)
	c.routes[r].n.Add(1)
}

// connState is fasthttp's ConnState hook: it sees every accepted connection
// once as StateNew and once as StateClosed or StateHijacked.
func (c *counters) connState(_ net.Conn, st fasthttp.ConnState) {
	switch st {
	case fasthttp.StateNew:
		c.accepted.n.Add(1)
		open := c.open.n.Add(1)
		for {
			peak := c.peak.n.Load()
			if open <= peak || c.peak.n.CompareAndSwap(peak, open) {
				break
			}
		}
	case fasthttp.StateClosed, fasthttp.StateHijacked:
		c.open.n.Add(-1)
	}
}

func (c *counters) snapshot() Stats {
	st := Stats{
		Requests:      uint64(c.requests.n.Load()),
		Routes:        make(map[string]uint64, numRoutes),
		ConnsAccepted: uint64(c.accepted.n.Load()),
		ConnsOpen:     c.open.n.Load(),
		ConnsPeak:     c.peak.n.Load(),
		WSMessages:    uint64(c.messages.n.Load()),
	}
	for r := range numRoutes {
		st.Routes[r.String()] = uint64(c.routes[r].n.Load())
	}
	return st
}

// Stats returns a snapshot of the counters.
func (s *Server) Stats() Stats {
	st := s.counters.snapshot()
	st.Cookies = s.cookies.snapshot()
	return st
}

// ResetStats zeroes the request counters and sets the connection peak to the
// connections open now, so one server can serve several measured runs.
// Accepted connections are reset too; open connections stay counted.
func (s *Server) ResetStats() {
	c := &s.counters
	c.requests.n.Store(0)
	for r := range c.routes {
		c.routes[r].n.Store(0)
	}
	c.accepted.n.Store(0)
	c.messages.n.Store(0)
	c.peak.n.Store(c.open.n.Load())
	s.cookies.reset()
}
