package loop

import (
	"sync"
	"time"

	"github.com/tressi/tressi/compile"
	"github.com/tressi/tressi/exec/internal/record"
	"github.com/tressi/tressi/exec/internal/run"
	"github.com/tressi/tressi/plan"
)

// The warm-up: the loops open their pooled connections, handshakes and
// all, before the run's instant zero, the way wrk, bombardier and h2load
// connect before they start counting. Without it the first slots of an
// open-model run wait for connects and TLS handshakes that have nothing to
// do with the server's answers, and show as send lag, all of it at the
// run's start (bench/README.md has the figures).
//
// A warm-up dial carries no job: once open it joins its target's idle
// pool (HTTP/1.1) or its muxes (HTTP/2), and the first request that needs
// a connection finds it there. One that fails is closed without a row: the
// request that needs the connection dials again and records what happens
// then. Dials the warm-up's time bound leaves unfinished go on into the
// run and join the pool when they finish.

// Warm opens every loop's warm-up connections, all loops at once, and
// returns when they are ready, failed, or until (run time) comes.
func (e *loopEngine) Warm(until int64) *record.Warmup {
	ex := e.ex
	loops, err := newLoops(ex, e.loops, e.addrs)
	if err != nil {
		e.err = err
		return nil
	}
	e.built = loops
	pooled := pooledTargets(ex.S, ex.Reqs)
	begin := time.Now()
	var wg sync.WaitGroup
	for i, l := range loops {
		if stampsWanted(ex.S) {
			l.useStamps() // before the first socket: see useStamps
		}
		want := l.warmCounts(pooled, e.share(i))
		wg.Go(func() { l.warm(want, until) })
	}
	wg.Wait()
	w := &record.Warmup{Ms: float64(time.Since(begin).Microseconds()) / 1e3}
	for _, l := range loops {
		for _, t := range l.targets {
			w.Connections += int64(len(t.idle) + len(t.muxes))
		}
	}
	if w.Connections == 0 {
		return nil
	}
	return w
}

// share is how many slots (open model) or users (closed) loop i gets at
// most: no loop needs more connections than that.
func (e *loopEngine) share(i int) int64 {
	s, n := e.ex.S, int64(e.loops)
	total := e.ex.Shard.Slots(s.Count)
	if s.Model == compile.Closed {
		total = e.ex.Shard.Slots(int64(len(s.Users)))
	}
	own := total / n
	if int64(i) < total%n {
		own++
	}
	return own
}

// warmCounts is how many connections this loop opens ahead to each target:
// its share of the target's connections, no more than it has slots or
// users, and none to targets only sessions with their own connections use.
func (l *evloop) warmCounts(pooled []bool, share int64) []int {
	want := make([]int, len(l.targets))
	for i, t := range l.targets {
		if pooled[t.idx] {
			want[i] = int(min(int64(t.maxConns), share))
		}
	}
	return want
}

// pooledTargets says, by target, whether any request goes to it over the
// pool: an endpoint's, a step of a scenario with connection = "pool", or
// an HTTP step of a WebSocket scenario (before its connect).
func pooledTargets(s *compile.Schedule, reqs []run.PreparedRequest) []bool {
	pooled := make([]bool, len(s.Targets))
	for _, e := range s.Entries {
		if !e.WebSocket && e.Connection == compile.ConnectionSession {
			continue
		}
		for _, st := range e.Steps {
			if st.Request >= 0 && (!e.WebSocket || st.Kind == plan.StepHTTP) {
				pooled[reqs[st.Request].Spec.Target] = true
			}
		}
	}
	return pooled
}

// warm dials want[i] connections to target i and waits on them until each
// is ready or failed, or until comes.
func (l *evloop) warm(want []int, until int64) {
	for i, n := range want {
		for range n {
			if _, err := l.openConn(l.targets[i]); err != nil {
				break // the run's own dials say why
			}
		}
	}
	for l.busy > 0 {
		l.now = l.ex.Clock.Now()
		if l.now >= until {
			break
		}
		wake := until
		if w := l.nextWake(); w >= 0 {
			wake = min(wake, w)
		}
		l.poll(wake)
		l.fireTimers() // connect timeouts
	}
	// HTTP/2 connections ready last still hold their preface and
	// SETTINGS: they go now, so the server's answer is in before instant
	// zero rather than behind the first requests.
	l.flushMuxes()
}
