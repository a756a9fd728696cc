package testserver

import (
	"sync"

	"github.com/valyala/fasthttp"
)

// LoggedRequest is one request the server received, when Options.LogRequests
// is set: enough to compare what a generator sent with a recording.
type LoggedRequest struct {
	Conn   uint64 // the connection it came on (fasthttp's id, unique per server)
	Method string
	URI    string // the request-target as sent
	Body   string
	// Headers as received, name as sent → values.
	Headers map[string][]string
}

// requestLog keeps every request in arrival order; only tests turn it on,
// so the benchmark route pays one nil check.
type requestLog struct {
	mu   sync.Mutex
	reqs []LoggedRequest
}

func (l *requestLog) add(ctx *fasthttp.RequestCtx) {
	r := LoggedRequest{Conn: ctx.ConnID(), Method: string(ctx.Method()), URI: string(ctx.RequestURI()),
		Body: string(ctx.Request.Body()), Headers: map[string][]string{}}
	for k, v := range ctx.Request.Header.All() {
		r.Headers[string(k)] = append(r.Headers[string(k)], string(v))
	}
	l.mu.Lock()
	l.reqs = append(l.reqs, r)
	l.mu.Unlock()
}

// Requests returns the requests received so far, in arrival order, when
// the server was started with Options.LogRequests (nil otherwise).
func (s *Server) Requests() []LoggedRequest {
	if s.log == nil {
		return nil
	}
	s.log.mu.Lock()
	defer s.log.mu.Unlock()
	return append([]LoggedRequest(nil), s.log.reqs...)
}
