package exec

import (
	"sync"
	"sync/atomic"
	"time"

	"github.com/tressi/tressi/compile"
	"github.com/tressi/tressi/results"
)

// clock is the run's single monotonic time base: every instant in the
// results is ns after it.
type clock struct{ base time.Time }

func (c *clock) now() int64 { return int64(time.Since(c.base)) }

// executor replays one schedule: it owns the clients, the slot ring, the
// workers and the run's stop state.
type executor struct {
	runTag uint32 // tags WebSocket marks of this run (see wsprogram.go)
	s      *compile.Schedule
	clock  clock
	cl     *clients
	reqs   []preparedRequest
	rec    *recorder
	shard  results.Shard

	ring  *slotRing        // open model
	pick  func(uint64) int // closed model selection
	bucks []*bucket        // closed model per-entry max_rate, nil when uncapped
	scen  *scenarios       // scenario entries and their sessions; nil without any
	// wsProgs are the WebSocket scenarios' programs, by entry (nil for
	// the others); nil without WebSocket scenarios.
	wsProgs []*wsProgram
	// connWaits counts the requests that waited for a connection, every
	// one of their target's connections being busy: their send lag is the
	// plan's connections, not the generator falling behind.
	connWaits atomic.Int64

	maxSample int
	maxBody   int      // the largest response body read
	samples   sync.Map // sampleKey → struct{}: first response per key wins

	stopCh   chan struct{}
	stopOnce sync.Once
	grace    time.Duration
	// graceTimer aborts the run the grace after a stop, unless the run
	// has settled (everything started has ended) by then.
	graceMu    sync.Mutex
	graceTimer *time.Timer
	settled    bool
	// interrupted: stopped by the caller; earlyExit: by a threshold.
	interrupted, earlyExit atomic.Bool
	// aborted: the grace ran out; what is still in flight is interrupted.
	aborted atomic.Bool
	// overrun marks the schedule's end plus the grace (schedule_end.go).
	overrun *overrunWatch

	abortStatus []bool // status codes that end the run at once
	th          *thresholds

	stats []*workerStats
	wg    sync.WaitGroup

	protos []protocolCounts // by target: connections by protocol, for meta.json

	// transport wraps every loop connection when set (see Options).
	transport transportFactory

	// engineErr: the engine failed mid-run (see broken).
	engineErr  error
	brokenOnce sync.Once

	// streamErr: the open schedule could not be read to its end (written
	// by the pacer before the ring finishes, read after the workers end).
	streamErr error
}

// workerStats are one worker's live counters, read by the monitor. Each
// worker writes only its own, so the atomics never contend.
type workerStats struct {
	sent, done, failed atomic.Int64
	_                  [40]byte // one cache line per worker
}

// stopping is closed once the run must stop starting requests.
func (ex *executor) stopping() bool {
	select {
	case <-ex.stopCh:
		return true
	default:
		return false
	}
}

// stop stops starting requests; those in flight get the grace, then the
// connections are cut and they are recorded as interrupted.
func (ex *executor) stop(interrupt bool) {
	ex.stopOnce.Do(func() {
		if interrupt {
			ex.interrupted.Store(true)
		} else {
			ex.earlyExit.Store(true)
		}
		close(ex.stopCh)
		ex.graceMu.Lock()
		if !ex.settled {
			ex.graceTimer = time.AfterFunc(ex.grace, ex.abort)
		}
		ex.graceMu.Unlock()
	})
}

// settle is called once everything the engine started has ended: a grace
// still running has nothing left to cut, so its timer stops, and a stop
// from now on (a threshold the last rows trip) arms none.
func (ex *executor) settle() {
	ex.graceMu.Lock()
	defer ex.graceMu.Unlock()
	ex.settled = true
	if ex.graceTimer != nil {
		ex.graceTimer.Stop()
	}
}

// broken stops the run at once on an engine failure (an epoll set the
// kernel no longer takes, say): what is in flight is interrupted, and Run
// returns err.
func (ex *executor) broken(err error) {
	ex.brokenOnce.Do(func() { ex.engineErr = err })
	ex.stop(true)
	ex.aborted.Store(true)
}

func (ex *executor) abort() {
	ex.aborted.Store(true)
	ex.cl.abort()
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
func (ex *executor) startOpen(src compile.SlotSource) {
	workers := workerCount(ex.s, ex.shard.Slots(ex.s.Count))
	// Every parked worker names itself in its own cell: the ring must hold
	// more cells than there are workers.
	size := ringSize
	for size < 2*workers {
		size *= 2
	}
	ex.ring = newSlotRing(size)
	p := &pacer{ex: ex, ring: ex.ring, src: src, timer: time.NewTimer(time.Hour), alarm: newAlarm()}
	p.timer.Stop()
	ex.wg.Go(p.run)
	for range workers {
		w := ex.newWorker()
		ex.wg.Go(w.runOpen)
	}
}

// startClosed starts one goroutine per user of this shard (user u belongs
// to shard u mod n).
func (ex *executor) startClosed(session *atomic.Uint64) {
	for u, span := range ex.s.Users {
		if !ex.shard.Owns(uint64(u)) {
			continue
		}
		w := ex.newWorker()
		ex.wg.Go(func() { w.runUser(span, session) })
	}
}

// wait blocks until every worker, and then every session, is done.
func (ex *executor) wait() {
	ex.wg.Wait()
	ex.scen.wait()
}
