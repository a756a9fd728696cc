package fast

import (
	"math"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tressi/tressi/exec/internal/run"
)

// sessionPool runs the open model's sessions. A session lasts many
// requests and think times, so the sessions in flight are about rate ×
// session length, far more than the slot workers, which only wait for each
// slot's instant and hand the session over. Runners are goroutines that
// each run one session at a time; the pool grows one when every runner is
// busy, up to maxSessions, and keeps them until the run ends, so a steady
// rate reuses the same runners and their buffers.
type sessionPool struct {
	eng     *Engine
	ex      *run.Executor
	starts  chan sessionStart
	runners atomic.Int64
	stats   []*run.WorkerStats // shared by runners in stripes; fixed before the monitor starts
	wg      sync.WaitGroup
}

// sessionStart is a session handed from a slot worker to a runner.
type sessionStart struct {
	k     uint64
	entry int
	due   int64
}

// maxSessions bounds the sessions in flight, and so the goroutines and
// memory they hold; beyond it sessions start late, and their first
// request's latency shows by how much.
const maxSessions = 16 << 10

func newSessionPool(e *Engine) *sessionPool {
	ex := e.ex
	p := &sessionPool{eng: e, ex: ex, starts: make(chan sessionStart)}
	for range runtime.GOMAXPROCS(0) {
		st := new(run.WorkerStats)
		p.stats = append(p.stats, st)
		ex.Stats = append(ex.Stats, st)
	}
	return p
}

// start hands the session of slot k, due now, to an idle runner, or to a
// new one while there are fewer than maxSessions; otherwise it waits for a
// runner to finish. A stop while waiting records the slot as not sent.
func (p *sessionPool) start(w *run.RowSink, k uint64, entry int, due int64) {
	st := sessionStart{k: k, entry: entry, due: due}
	select {
	case p.starts <- st:
		return
	default:
	}
	if p.grow(st) {
		return
	}
	select {
	case p.starts <- st:
	case <-p.ex.StopCh:
		w.NotSent(k, entry, due)
	}
}

// grow starts a runner whose first session is st, unless the pool is full.
func (p *sessionPool) grow(st sessionStart) bool {
	for {
		n := p.runners.Load()
		if n >= maxSessions {
			return false
		}
		if p.runners.CompareAndSwap(n, n+1) {
			w := p.newRunner(p.stats[n%int64(len(p.stats))])
			p.wg.Go(func() { p.run(w, st) })
			return true
		}
	}
}

// newRunner is newWorker for a runner: its counters are a shared stripe,
// since the monitor reads a list fixed before the run.
func (p *sessionPool) newRunner(stats *run.WorkerStats) *worker {
	return p.eng.workerWith(p.ex.SinkWith(stats))
}

// run runs sessions until the pool closes.
func (p *sessionPool) run(w *worker, st sessionStart) {
	defer w.Flush()
	r := newSessionRunner(w)
	for ok := true; ok; st, ok = p.next(w) {
		r.run(st.k, st.entry, st.due, math.MaxInt64)
	}
}

// next waits for the next session. An idle runner hands its rows over
// after flushAge rather than sitting on them until the run ends.
func (p *sessionPool) next(w *worker) (sessionStart, bool) {
	select {
	case st, ok := <-p.starts:
		return st, ok
	default:
	}
	if len(w.Rows) > 0 {
		w.timer.Reset(time.Duration(run.FlushAge))
		select {
		case st, ok := <-p.starts:
			w.timer.Stop()
			return st, ok
		case <-w.timer.C:
			w.Flush()
		}
	}
	st, ok := <-p.starts
	return st, ok
}

// wait closes the pool once no slot worker can hand it a session, and
// waits for the sessions still running.
func (p *sessionPool) wait() {
	close(p.starts)
	p.wg.Wait()
}
