// Package exec replays a compiled schedule against real servers and records
// one row per slot into the run directory's Arrow files, with latency
// measured from each slot's due instant so a stalling server cannot hide
// behind coordinated omission.
//
// This package is Run (run.go, its phases in runphases.go), Options,
// Outcome and the engine choice (engine.go); the rest is in its rooms under
// exec/internal, whose imports go one way (docs/engines.md has the whole
// picture):
//
//   - loop: an epoll event loop per spare core on raw sockets, whose
//     connections speak HTTP/1.1, HTTP/2 or WebSocket; its transport seam
//     carries TLS, and each connection's framing is a concrete kind.
//   - fast: lock-free fasthttp workers, the engine where epoll is missing.
//   - run: what both engines share of one run: the executor, row sinks,
//     thresholds, prepared requests, clients, session programs.
//   - record: the recorder, meta.json and the run directory.
//   - session: captures and JSON scanning; drive: the burst clock, timer
//     heap, admission FIFO and slot ring; sys: every system call.
package exec

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"slices"
	"time"

	"github.com/tressi/tressi/compile"
	"github.com/tressi/tressi/exec/internal/run"
	"github.com/tressi/tressi/results"
)

// Options say where and how a schedule runs.
type Options struct {
	OutDir   string        // run directory to create (see DefaultRunDir)
	Shard    results.Shard // stripe i/n: slot k belongs to shard k mod n; zero: everything
	StartAt  time.Time     // wall-clock start shared by shards; zero: now
	Progress io.Writer     // live progress; nil: none
	Terminal bool          // Progress is a terminal: redraw one line instead of printing lines
	Grace    time.Duration // how long in-flight requests may finish after a stop; default 2s
	// StartTolerance is how late StartAt may be reached before the run
	// refuses (a LateStartError); default DefaultStartTolerance.
	StartTolerance time.Duration
	// MaxBodySample is how much of a sampled response body is kept;
	// default results.SampleBodyLimit.
	MaxBodySample int
	// MaxResponseBody is the largest body read before a response counts as
	// body_too_large; default 64 MiB.
	MaxResponseBody int
	// Interrupt is closed by the caller on the first SIGINT/SIGTERM: stop
	// starting requests, give those in flight the grace, keep the results.
	Interrupt <-chan struct{}
	// Version and CommandLine go into meta.json and the results' metadata;
	// the command line must already have its secrets redacted.
	Version, CommandLine string
	// TPlan writes plan.tplan, the schedule this run replays; nil: none.
	TPlan func(io.Writer) error
	// Engine picks what sends the requests: EngineLoop, EngineFasthttp, or
	// "" for the loop wherever it can run the plan (see chooseEngine).
	Engine string

	// transport, when set, wraps every loop connection (the transport
	// seam's own tests).
	transport run.TransportFactory
	// engine, when set, replaces the chosen engine (tests of what Run does
	// when an engine fails to start).
	engine func(*run.Executor) engine
	// Probe is written to the results' metadata (results.KeyProbe) when a
	// capacity search runs this schedule as one of its probes.
	Probe string
	// Observe, when set, sees every row as the recorder takes it (ok: a
	// response with an expected status), on the recorder's goroutine. It
	// must not keep row.
	Observe func(row *results.Row, ok bool)
	// SetUp, when set, is called once the run is set up (connections
	// warm, results file and recorder ready), just before the engine
	// starts and within the lead the clock leaves for it (startLead), with
	// the name of the engine about to start (EngineLoop, EngineFasthttp):
	// the place for process-wide settings, which exec leaves to its
	// caller. tressi's CLI returns what loading and compiling the plan and
	// setting up the run left behind to the OS there (debug.FreeOSMemory),
	// so the heap starts at its working size and the first collection
	// comes when that doubles, not in the run's first second; and for the
	// loop engine it makes every thread but the loops' own step back for
	// them (cli/threads_linux.go). The loop engine also needs GOMAXPROCS
	// of 2 or more (each loop holds a P; the recorder needs one of its
	// own, even on one core): Run refuses less.
	SetUp func(engine string)
	// Watch, when set, is asked on every monitor tick (250 ms) whether the
	// run must stop: a non-empty answer ends it early with that reason, as
	// a live threshold would, whatever thresholds.abort says. now is the
	// run's clock; completed counts the outcomes so far (every row but
	// not_sent), read when called, so a caller can order it after its own
	// reads.
	Watch func(now int64, completed func() int64) (stop string)
	// Started, when set, is called once the engine started, with what a
	// live view reads of the run (see LiveRun).
	Started func(LiveRun)
}

// Outcome is what a run did.
type Outcome struct {
	Dir   string // the run directory
	RunID string
	Start time.Time // wall clock of the run's instant zero
	End   time.Time

	Requests int64 // rows written: every slot of the shard (closed model: every request)
	Sent     int64 // requests whose bytes went out
	OK       int64 // responses with an expected status and no error
	// ErrorKinds counts the error column's words; Status the status column.
	ErrorKinds map[string]int64
	Status     map[uint16]int64
	// Latency is the corrected latency at p50, p90, p95, p99 and p999 (keys
	// "p50"…"p999"), absent without responses.
	Latency map[string]time.Duration

	Engine string // the engine that sent the requests

	// TLSHandshakes counts the TLS handshakes of https targets; TLSResumed
	// those that resumed an earlier session instead of a full handshake.
	TLSHandshakes, TLSResumed int64

	Interrupted bool // stopped by Options.Interrupt or the context
	EarlyExit   bool // stopped by a live threshold
	// Overran: a session was still sending at the schedule's end plus the
	// grace, and was cut short then (see schedule_end.go).
	Overran bool
	// Thresholds is the run's verdict: every threshold of the plan judged
	// on the whole run, and "early_exit" when a live one stopped it.
	Thresholds []results.ThresholdResult
	// ThresholdFailures lists the verdict's failures as "name: detail", as
	// meta.json holds them.
	ThresholdFailures []string
}

// Passed reports whether the run completed with every threshold met.
func (o *Outcome) Passed() bool {
	return !o.Interrupted && !o.EarlyExit && len(o.ThresholdFailures) == 0
}

// Run replays s and writes the run directory opt.OutDir. It returns an
// error only when the run could not be carried out or recorded (an
// *InputError when what it was given is at fault); failed thresholds and
// interruptions are in the Outcome.
func Run(ctx context.Context, s *compile.Schedule, opt Options) (*Outcome, error) {
	r, err := begin(s, opt)
	if err != nil {
		return nil, err
	}
	defer r.cleanUp()
	if err := r.setUp(); err != nil {
		return nil, err
	}
	if err := r.openResults(); err != nil {
		return nil, err
	}
	if err := r.start(); err != nil {
		return nil, err
	}
	r.await(ctx)
	return r.out, recordError(r.opt.OutDir, r.finish())
}

// Defaults of Options left zero.
const (
	DefaultGrace           = 2 * time.Second
	DefaultMaxResponseBody = 64 << 20
)

// defaults fills what the caller left zero: the one place Options are
// defaulted.
func (opt *Options) defaults() {
	if opt.Grace <= 0 {
		opt.Grace = DefaultGrace
	}
	if opt.MaxBodySample <= 0 {
		opt.MaxBodySample = results.SampleBodyLimit
	}
	if opt.MaxResponseBody <= 0 {
		opt.MaxResponseBody = DefaultMaxResponseBody
	}
	if opt.Shard.Count == 0 {
		opt.Shard = results.Shard{Index: 0, Count: 1}
	}
	if opt.StartTolerance <= 0 {
		opt.StartTolerance = DefaultStartTolerance
	}
}

// check refuses schedules this executor cannot run faithfully.
func check(s *compile.Schedule) error {
	if len(s.Entries) == 0 {
		return fmt.Errorf("the schedule has no endpoints")
	}
	for _, e := range s.Entries {
		if !e.Scenario && len(e.Steps) != 1 {
			return fmt.Errorf("endpoint %q has %d steps, an endpoint has exactly one; recompile the plan", e.Name, len(e.Steps))
		}
		if e.Scenario && len(e.Steps) == 0 {
			return fmt.Errorf("scenario %q has no steps; give it at least one step block", e.Name)
		}
		for _, st := range e.Steps {
			if r := st.Request; (r < 0 && st.Kind.Rows()) || r >= len(s.Requests) {
				return fmt.Errorf("entry %q names request %d, the schedule has %d; recompile the plan", e.Name, r, len(s.Requests))
			}
		}
	}
	if s.Model != compile.Open && s.Model != compile.Closed {
		return fmt.Errorf("the schedule has no load model")
	}
	// The plan's loader set every default; a target without them was not
	// compiled by this tressi.
	for _, t := range s.Targets {
		if t.Connections < 1 || t.Timeout <= 0 || t.ConnectTimeout <= 0 || t.Scheme == "" || t.Host == "" || t.Addr == "" {
			return fmt.Errorf("target %q lacks its connections, timeouts, scheme or address; recompile the plan with this tressi", t.Name)
		}
	}
	for i := range s.Targets {
		// The TLS files are read again when the run starts (a .tplan keeps
		// their paths): a file gone since is bad input, found before the
		// run directory is made.
		if s.Targets[i].Scheme == "https" {
			if _, err := run.NewTLSConfig(&s.Targets[i], new(run.TLSStats)); err != nil {
				return &InputError{Err: fmt.Errorf("%w; fix the path in the target's tls block", err)}
			}
		}
	}
	return nil
}

// expectations gives each endpoint (results index) its expected statuses:
// those of the first request carrying its name.
func expectations(s *compile.Schedule, reqs []run.PreparedRequest, n int) [][]int {
	out := make([][]int, n)
	seen := make([]bool, n)
	for i := range reqs {
		if ep := reqs[i].Endpoint; !seen[ep] {
			seen[ep] = true
			out[ep] = s.Requests[i].Expect
		}
	}
	return out
}

// grpcEndpoints names the endpoints that are gRPC calls, whose status
// column holds gRPC codes.
func grpcEndpoints(s *compile.Schedule, reqs []run.PreparedRequest, names []string) []string {
	var out []string
	for i := range reqs {
		if name := names[reqs[i].Endpoint]; s.Requests[i].GRPC != nil && !slices.Contains(out, name) {
			out = append(out, name)
		}
	}
	return out
}

func expectMap(names []string, expect [][]int) map[string][]int {
	m := map[string][]int{}
	for i, e := range expect {
		if len(e) > 0 {
			m[names[i]] = e
		}
	}
	return m
}

func exitStatus(o *Outcome, err error) string {
	switch {
	case err != nil:
		return "error"
	case o.Interrupted:
		return "interrupted"
	case o.EarlyExit:
		return "early_exit"
	case o.Overran:
		return "overran"
	case len(o.ThresholdFailures) > 0:
		return "thresholds_failed"
	}
	return "ok"
}

func newRunID() string {
	var b [16]byte
	_, _ = rand.Read(b[:]) // crypto/rand never fails on supported platforms
	return hex.EncodeToString(b[:])
}

// runTag is a short tag of the run id, in WebSocket marks.
func runTag(id string) uint32 {
	var t uint32
	for _, c := range []byte(id) {
		t = t*31 + uint32(c)
	}
	return t
}
