package fast

import (
	"time"

	"github.com/tressi/tressi/exec/internal/run"
	"github.com/valyala/fasthttp"
)

// sessionSlots caps how many sessions hold their own connection to one
// target at once: the target's `connections`. A buffered channel is the
// semaphore; only a session's first request to a target takes a slot, so
// the per-request path of a session never touches it.
type sessionSlots chan struct{}

func newSessionSlots(n int) sessionSlots { return make(sessionSlots, max(n, 1)) }

// acquire takes a slot, waiting at most wait: like the shared pool's wait
// for a free connection, the wait is part of the request's latency and ends
// as a timeout. A stop ends the wait at once.
func (s sessionSlots) acquire(wait time.Duration, stop <-chan struct{}) error {
	select {
	case s <- struct{}{}:
		return nil
	default:
	}
	t := time.NewTimer(wait)
	defer t.Stop()
	select {
	case s <- struct{}{}:
		return nil
	case <-t.C:
		return fasthttp.ErrNoFreeConns
	case <-stop:
		return run.ErrAborted
	}
}

func (s sessionSlots) release() { <-s }

// sessionConns are the connections of the session a runner is running,
// one per target it talked to (connection = "session"). Each is a
// HostClient limited to one connection with the shared client's timeouts,
// TLS and dialer; the runner keeps the clients across sessions but closes
// their connection at every session's end, as a real user's browser would.
type sessionConns struct {
	hosts []*fasthttp.HostClient // by target; nil until first used
	held  []bool                 // by target: this session holds a slot
	slots []sessionSlots         // by target: the run's limits
}

// get returns the session's client for target t, taking a slot of the
// target's connections on the session's first request to it.
func (c *sessionConns) get(e *Engine, t int, wait time.Duration) (*fasthttp.HostClient, error) {
	ex := e.ex
	if c.hosts == nil {
		c.hosts = make([]*fasthttp.HostClient, len(ex.S.Targets))
		c.held = make([]bool, len(ex.S.Targets))
		c.slots = e.slots
	}
	if c.held[t] {
		return c.hosts[t], nil
	}
	if err := c.slots[t].acquire(wait, ex.StopCh); err != nil {
		return nil, err
	}
	c.held[t] = true
	if c.hosts[t] == nil {
		hc := ex.Cl.HostClient(&ex.S.Targets[t], ex.Cl.Hosts[t].MaxResponseBodySize)
		hc.MaxConns = 1
		c.hosts[t] = hc
	}
	return c.hosts[t], nil
}

// end closes the session's connections and gives their slots back.
func (c *sessionConns) end() {
	for t, held := range c.held {
		if !held {
			continue
		}
		c.hosts[t].CloseIdleConnections()
		c.held[t] = false
		c.slots[t].release()
	}
}
