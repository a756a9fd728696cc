package fast

import (
	"sync/atomic"
	"time"

	"github.com/tressi/tressi/compile"
	"github.com/tressi/tressi/exec/internal/drive"
	"github.com/tressi/tressi/exec/internal/record"
	"github.com/tressi/tressi/exec/internal/run"
	"github.com/tressi/tressi/exec/internal/sys"
)

// Engine is the fasthttp engine: lock-free fasthttp workers, one per
// closed-model user, or a pool released by the open model's pacer
// (worker.go, pacer.go, session.go, sessionpool.go). It runs every plan,
// on every OS.
type Engine struct {
	ex      *run.Executor
	session *atomic.Uint64
	ring    *drive.SlotRing // the open model's slots, from the pacer to the workers
	// slots: by target, the sessions that may hold a connection of their
	// own (connection = "session"); pool: the open model's session
	// runners. Both nil without scenarios.
	slots []sessionSlots
	pool  *sessionPool
}

// New is the engine that runs ex's schedule; session is the closed
// model's session counter, by which every user picks its next entry.
func New(ex *run.Executor, session *atomic.Uint64) *Engine {
	return &Engine{ex: ex, session: session}
}

func (e *Engine) Name() string { return run.EngineFasthttp }

func (e *Engine) Senders() int {
	s := e.ex.S
	if s.Model == compile.Open {
		return workerCount(s, s.Count)
	}
	return len(s.Users)
}

func (e *Engine) BatchRows() int {
	if e.ex.S.Model == compile.Open {
		return record.OpenBatchRows
	}
	return record.ClosedBatchRows
}

func (e *Engine) Background() bool { return false }

func (e *Engine) Start() error {
	ex := e.ex
	if ex.Scen != nil {
		for i := range ex.S.Targets {
			e.slots = append(e.slots, newSessionSlots(ex.S.Targets[i].Connections))
		}
		if ex.S.Model == compile.Open {
			e.pool = newSessionPool(e)
		}
	}
	if ex.S.Model == compile.Open {
		e.startOpen(ex.S.Slots())
	} else {
		e.startClosed(e.session)
	}
	return nil
}

// Wait waits for the sessions still running once no more can start, after
// the executor's wait group (the workers that start them).
func (e *Engine) Wait() {
	if e.pool != nil {
		e.pool.wait()
	}
}

// workerCount is enough concurrency to hold the rate however slow the
// server is, bounded by the connections requests can use anyway (more
// workers would only wait for a connection) and by a sane cap.
func workerCount(s *compile.Schedule, shardSlots int64) int {
	n := 0
	for _, t := range s.Targets {
		n += t.Connections
	}
	n = min(n, maxWorkers)
	if shardSlots >= 0 {
		n = min(n, int(min(shardSlots, int64(maxWorkers))))
	}
	return max(n, 1)
}

const maxWorkers = 16 << 10

// startOpen starts the pacer and the workers of the open model.
func (e *Engine) startOpen(src compile.SlotSource) {
	ex := e.ex
	workers := workerCount(ex.S, ex.Shard.Slots(ex.S.Count))
	// Every parked worker names itself in its own cell: the ring must hold
	// more cells than there are workers.
	size := drive.RingSize
	for size < 2*workers {
		size *= 2
	}
	e.ring = drive.NewSlotRing(size)
	p := &pacer{ex: ex, ring: e.ring, src: src, timer: time.NewTimer(time.Hour), alarm: sys.NewAlarm()}
	p.timer.Stop()
	ex.Wg.Go(p.run)
	for range workers {
		w := e.newWorker()
		ex.Wg.Go(w.runOpen)
	}
}

// startClosed starts one goroutine per user of this shard (user u belongs
// to shard u mod n).
func (e *Engine) startClosed(session *atomic.Uint64) {
	ex := e.ex
	for u, span := range ex.S.Users {
		if !ex.Shard.Owns(uint64(u)) {
			continue
		}
		w := e.newWorker()
		ex.Wg.Go(func() { w.runUser(span, session) })
	}
}
