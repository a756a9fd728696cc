package run

import (
	"sync"
	"sync/atomic"
	"time"

	"github.com/tressi/tressi/compile"
	"github.com/tressi/tressi/exec/internal/drive"
	"github.com/tressi/tressi/exec/internal/record"
	"github.com/tressi/tressi/exec/internal/sys"
	"github.com/tressi/tressi/results"
)

// Executor replays one schedule: it owns the clients, the slot ring, the
// workers and the run's stop state.
type Executor struct {
	RunTag uint32 // tags WebSocket marks of this run (see wsprogram.go)
	S      *compile.Schedule
	Clock  sys.Clock
	Cl     *clients
	Reqs   []PreparedRequest
	Rec    *record.Recorder
	Shard  results.Shard

	ring  *drive.SlotRing  // open model
	Pick  func(uint64) int // closed model selection
	Bucks []*Bucket        // closed model per-entry max_rate, nil when uncapped
	Scen  *scenarios       // scenario entries and their sessions; nil without any
	// Cookies: each entry's cookie mode and the run's shared jar (cookies.go).
	Cookies RunCookies
	// WSProgs are the WebSocket scenarios' programs, by entry (nil for
	// the others); nil without WebSocket scenarios.
	WSProgs []*WSProgram
	// ConnWaits counts the requests that waited for a connection, every
	// one of their target's connections being busy: their send lag is the
	// plan's connections, not the generator falling behind.
	ConnWaits atomic.Int64

	MaxSample int
	MaxBody   int      // the largest response body read
	samples   sync.Map // sampleKey → struct{}: first response per key wins

	StopCh   chan struct{}
	stopOnce sync.Once
	Grace    time.Duration
	// graceTimer aborts the run the grace after a stop, unless the run
	// has settled (everything started has ended) by then.
	graceMu    sync.Mutex
	graceTimer *time.Timer
	settled    bool
	// Interrupted: stopped by the caller; earlyExit: by a threshold.
	Interrupted, EarlyExit atomic.Bool
	// Aborted: the grace ran out; what is still in flight is interrupted.
	Aborted atomic.Bool
	// Overrun marks the schedule's end plus the grace (schedule_end.go).
	Overrun *overrunWatch

	AbortStatus []bool // status codes that end the run at once
	Th          *thresholds

	Stats []*workerStats
	Wg    sync.WaitGroup

	Protos []ProtocolCounts // by target: connections by protocol, for meta.json

	// Transport wraps every loop connection when set (see Options).
	Transport TransportFactory

	// EngineErr: the engine failed mid-run (see broken).
	EngineErr  error
	brokenOnce sync.Once

	// StreamErr: the open schedule could not be read to its end (written
	// by the pacer before the ring finishes, read after the workers end).
	StreamErr error
}

// workerStats are one worker's live counters, read by the monitor. Each
// worker writes only its own, so the atomics never contend.
type workerStats struct {
	Sent, Done, Failed atomic.Int64
	_                  [40]byte // one cache line per worker
}

// Stopping is closed once the run must stop starting requests.
func (ex *Executor) Stopping() bool {
	select {
	case <-ex.StopCh:
		return true
	default:
		return false
	}
}

// Stop stops starting requests; those in flight get the grace, then the
// connections are cut and they are recorded as interrupted.
func (ex *Executor) Stop(interrupt bool) {
	ex.stopOnce.Do(func() {
		if interrupt {
			ex.Interrupted.Store(true)
		} else {
			ex.EarlyExit.Store(true)
		}
		close(ex.StopCh)
		ex.graceMu.Lock()
		if !ex.settled {
			ex.graceTimer = time.AfterFunc(ex.Grace, ex.abort)
		}
		ex.graceMu.Unlock()
	})
}

// Settle is called once everything the engine started has ended: a grace
// still running has nothing left to cut, so its timer stops, and a stop
// from now on (a threshold the last rows trip) arms none.
func (ex *Executor) Settle() {
	ex.graceMu.Lock()
	defer ex.graceMu.Unlock()
	ex.settled = true
	if ex.graceTimer != nil {
		ex.graceTimer.Stop()
	}
}

// Broken stops the run at once on an engine failure (an epoll set the
// kernel no longer takes, say): what is in flight is interrupted, and Run
// returns err.
func (ex *Executor) Broken(err error) {
	ex.brokenOnce.Do(func() { ex.EngineErr = err })
	ex.Stop(true)
	ex.Aborted.Store(true)
}

func (ex *Executor) abort() {
	ex.Aborted.Store(true)
	ex.Cl.abort()
}

// WorkerCount is enough concurrency to hold the rate however slow the
// server is, bounded by the connections requests can use anyway (more
// workers would only wait for a connection) and by a sane cap.
func WorkerCount(s *compile.Schedule, shardSlots int64) int {
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

// StartOpen starts the pacer and the workers of the open model.
func (ex *Executor) StartOpen(src compile.SlotSource) {
	workers := WorkerCount(ex.S, ex.Shard.Slots(ex.S.Count))
	// Every parked worker names itself in its own cell: the ring must hold
	// more cells than there are workers.
	size := drive.RingSize
	for size < 2*workers {
		size *= 2
	}
	ex.ring = drive.NewSlotRing(size)
	p := &pacer{ex: ex, ring: ex.ring, src: src, timer: time.NewTimer(time.Hour), alarm: sys.NewAlarm()}
	p.timer.Stop()
	ex.Wg.Go(p.run)
	for range workers {
		w := ex.NewWorker()
		ex.Wg.Go(w.runOpen)
	}
}

// StartClosed starts one goroutine per user of this shard (user u belongs
// to shard u mod n).
func (ex *Executor) StartClosed(session *atomic.Uint64) {
	for u, span := range ex.S.Users {
		if !ex.Shard.Owns(uint64(u)) {
			continue
		}
		w := ex.NewWorker()
		ex.Wg.Go(func() { w.runUser(span, session) })
	}
}

// Wait blocks until every worker, and then every session, is done.
func (ex *Executor) Wait() {
	ex.Wg.Wait()
	ex.Scen.wait()
}
