package run

import (
	"sync"
	"sync/atomic"
	"time"

	"github.com/tressi/tressi/compile"
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
	// Streams count the gRPC streams' calls and messages, by open step
	// (grpcstream.go); nil without streams.
	Streams map[string]*StreamCounts
	Rec     *record.Recorder
	Shard   results.Shard

	Pick  func(uint64) int // closed model selection
	Bucks []*Bucket        // closed model per-entry max_rate, nil when uncapped
	Scen  *scenarios       // scenario entries and their sessions; nil without any
	// Cookies: each entry's cookie mode and the run's shared jar (cookies.go).
	Cookies RunCookies
	// WSProgs are the WebSocket scenarios' programs, by entry (nil for
	// the others); nil without WebSocket scenarios.
	WSProgs []*Program
	// ConnWaits counts the requests that waited for a connection, every
	// one of their target's connections being busy: their send lag is the
	// plan's connections, not the generator falling behind.
	ConnWaits atomic.Int64
	// Redirects are the targets' origins a Location is matched to; Hops
	// counts, by endpoint, the redirects followed: each a request on the
	// wire beyond the endpoint's rows (redirect.go).
	Redirects RedirectOrigins
	Hops      []atomic.Int64

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

	Stats []*WorkerStats
	Wg    sync.WaitGroup

	Protos []ProtocolCounts // by target: connections by protocol, for meta.json
	// RingConns counts the loop's connections that ran on io_uring
	// (meta.json's io_uring_connections); the others ran on epoll.
	RingConns atomic.Int64

	// Transport wraps every loop connection when set (see Options).
	Transport TransportFactory

	// EngineErr: the engine failed mid-run (see broken).
	EngineErr  error
	brokenOnce sync.Once

	// StreamErr: the open schedule could not be read to its end (written
	// by the pacer before the ring finishes, read after the workers end).
	StreamErr error
}

// WorkerStats are one worker's live counters, read by the monitor. Each
// worker writes only its own, so the atomics never contend.
type WorkerStats struct {
	Sent, Done, Failed atomic.Int64
	// Sessions: the worker's (or loop's) scenario sessions active now in
	// the open model, users running in the closed model; added to where
	// one starts or ends. A loop stores them, the connections it has Open
	// and its requests InFlight now and then (loop.storeGauges), never per
	// request.
	Sessions, Open, InFlight atomic.Int64
	_                        [16]byte // one cache line per worker
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

// Wait blocks until everything started in the executor's wait group is
// done.
func (ex *Executor) Wait() { ex.Wg.Wait() }
