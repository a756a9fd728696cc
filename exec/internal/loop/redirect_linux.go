package loop

import (
	"github.com/tressi/tressi/exec/internal/run"
	"github.com/tressi/tressi/h1"
)

// The loop's side of redirects (run/redirect.go): a job whose answer is a
// redirect it follows goes out again as the next hop, to the target the
// Location names, and its one row, when the chain ends, covers every hop
// (as a digest challenge's second round does, digest_linux.go).

// redirectChain is a job's redirects so far; nil on a job until its
// first hop. The loop keeps spent chains for the next (freeChains), so a
// chain's buffers are made once.
type redirectChain struct {
	hops   int
	target int    // where this hop goes
	cross  bool   // a hop left the first origin: its credentials stay behind
	method string // this hop's
	// wire is this hop's request, without the jar's cookies; next is
	// where the next one is built, then swapped with it; path the next
	// hop's request-target; base the first hop's request, rendered.
	wire, next, path, base []byte
	// stop is why the chain ended on a redirect it did not follow.
	stop error
	// What the earlier hops left, for the row (see totals).
	sent, out, in, connect int64
}

// target is the index of the target j goes to now.
func (j *ljob) target() int {
	if r := j.redir; r != nil {
		return r.target
	}
	return j.pr.Spec.Target
}

// method is the method j sends now.
func (j *ljob) method() string {
	if r := j.redir; r != nil {
		return r.method
	}
	return j.pr.Spec.Method
}

// crossed says whether j left the origin its request names: digest
// answers and basic credentials are the first origin's alone.
func (j *ljob) crossed() bool { return j.redir != nil && j.redir.cross }

// wantsLocation says whether a response of this status to j is one whose
// head the loop must keep, to follow it.
func (j *ljob) wantsLocation(status int) bool {
	return j.pr.Spec.Redirects > 0 && !j.ws && run.IsRedirect(status)
}

// redirect takes resp, j's answer, that exchange's figures being sent, out,
// in and connect: for a redirect j follows, it readies j's next hop (or,
// past its redirects or off the plan's targets, marks the chain stopped)
// and says whether j goes out again.
func (l *evloop) redirect(j *ljob, resp *lresponse, sent, out, in, connect int64) bool {
	if !j.wantsLocation(resp.status) || l.ex.Aborted.Load() {
		return false
	}
	loc := location(resp.Head)
	if loc == nil {
		return false // a 3xx without a Location is an answer like any other
	}
	r := j.redir
	if r == nil {
		r = l.newChain(j)
	}
	if r.hops >= j.pr.Spec.Redirects {
		r.stop = &run.ErrTooManyRedirects{Hops: r.hops, Location: string(loc)}
		return false
	}
	from := j.target()
	to, path, ok := l.ex.Redirects.Resolve(from, requestTarget(r.wire), loc, r.path[:0])
	r.path = path
	if !ok {
		r.stop = &run.ErrRedirectRefused{Location: string(loc)}
		return false
	}
	l.keepCookies(j, resp) // a login's 302 sets the session's cookie
	method, keepBody := run.RedirectMethod(resp.status, r.method)
	host := ""
	if to != from {
		host = l.ex.Redirects.HostHeader(to)
	}
	r.cross = r.cross || to != j.pr.Spec.Target
	r.next = run.RedirectWire(r.next[:0], r.wire, method, r.path, host, keepBody, r.cross)
	r.wire, r.next = r.next, r.wire
	r.sent, r.out, r.in, r.connect = sent, out, in, connect
	r.hops++
	r.target, r.method = to, method
	j.auth, j.retry = authRound{}, false
	if int(j.pr.Endpoint) < len(l.ex.Hops) {
		l.ex.Hops[j.pr.Endpoint].Add(1)
	}
	return true
}

// newChain starts j's chain from its first hop's request.
func (l *evloop) newChain(j *ljob) *redirectChain {
	var r *redirectChain
	if n := len(l.freeChains); n > 0 {
		r = l.freeChains[n-1]
		l.freeChains = l.freeChains[:n-1]
	} else {
		r = new(redirectChain)
	}
	wire := j.pr.Wire
	if wire == nil {
		r.base = l.render(r.base[:0], j)
		wire = r.base
	}
	r.wire = append(r.wire[:0], wire...)
	r.hops, r.target, r.cross, r.method, r.stop = 0, j.pr.Spec.Target, false, j.pr.Spec.Method, nil
	j.redir = r
	return r
}

// endChain gives j's chain back once its row is recorded.
func (l *evloop) endChain(j *ljob) {
	if r := j.redir; r != nil {
		j.redir = nil
		l.freeChains = append(l.freeChains, r)
	}
}

// redirectStop is why j's chain ended on a redirect it did not follow,
// nil when it did not.
func (j *ljob) redirectStop() error {
	if r := j.redir; r != nil {
		return r.stop
	}
	return nil
}

// location is the Location field of a kept response head, nil without one.
func location(head []byte) []byte {
	for v := range h1.FieldValues(head, "location") {
		return v
	}
	return nil
}

// requestTarget is the request-target of an HTTP/1.1 request's bytes.
func requestTarget(wire []byte) []byte {
	for i, c := range wire {
		if c == ' ' {
			rest := wire[i+1:]
			for k, c := range rest {
				if c == ' ' || c == '\r' {
					return rest[:k]
				}
			}
			return rest
		}
	}
	return nil
}

// followH1 sends j's next hop after c's answer: c goes back to its
// target's pool (or its session) first, as after any answer, and the hop
// takes a connection as any job does.
func (l *evloop) followH1(c *lconn, j ljob, keepConn bool) {
	c.connect = 0
	c.served = true
	l.busy--
	l.releaseAnswered(c, keepConn)
	l.dispatch(j)
}
