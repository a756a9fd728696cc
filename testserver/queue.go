package testserver

import (
	"sync"
	"time"

	"github.com/valyala/fasthttp"
)

// pathQueue is the route of the server's single queue.
var pathQueue = []byte("/queue")

// DefaultQueueService is /queue's service time when the request names none.
const DefaultQueueService = time.Millisecond

// fifo is a single server with a fixed service time per request, serving
// requests first come, first served: a service with a known capacity of
// 1/service requests per second, whose latency stays flat below it and
// grows without bound above it.
//
// It keeps the queue in virtual time instead of running a worker goroutine
// that spins for each service time: request i finishes at
// max(arrival_i, finish_{i−1}) + service_i, computed under a lock, and its
// handler sleeps until then. On a loaded machine a spinning worker loses
// its core to the scheduler and to the HTTP handling beside it, so its
// real capacity would be below 1/service and vary with the load; the
// virtual queue's capacity is exact whatever the CPU does, and a handler
// that wakes late delays only its own answer, never the queue.
type fifo struct {
	mu   sync.Mutex
	free int64 // Unix ns at which the server is next idle
}

// admit queues a request arriving at now (Unix ns) needing service ns and
// returns when it is served.
func (q *fifo) admit(now, service int64) int64 {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.free = max(q.free, now) + service
	return q.free
}

// queue answers /queue?service=DURATION (default 1ms, at most MaxDelay)
// once the server's single FIFO queue has served it: see fifo.
func (s *Server) queue(ctx *fasthttp.RequestCtx) {
	service := DefaultQueueService
	if v := ctx.QueryArgs().Peek("service"); len(v) > 0 {
		d, err := time.ParseDuration(string(v))
		if err != nil || d <= 0 {
			ctx.Error("service must be a duration above 0, such as 500us\n", fasthttp.StatusBadRequest)
			return
		}
		service = min(d, s.opts.MaxDelay)
	}
	done := s.fifo.admit(time.Now().UnixNano(), int64(service))
	if wait := time.Until(time.Unix(0, done)); wait > 0 {
		s.sleep(wait)
	}
	ctx.Response.SetBodyRaw(bodyOK)
}
