// Package exec replays a compiled schedule against real servers and records
// one row per slot into the run directory's Arrow files, with latency
// measured from each slot's due instant so a stalling server cannot hide
// behind coordinated omission.
//
// Two engines send (engine.go picks one; both record through a rowSink,
// sink.go): an epoll event loop per spare core on raw sockets
// (loop_linux.go and the loop*_linux.go files), and lock-free fasthttp
// workers, the engine where epoll is missing (worker.go, pacer.go,
// session.go). fasthttp writes the request bytes for both.
//
// The loop has two seams, so protocols and security plug in without
// touching its event handling (docs/engines.md has the whole picture):
//
//   - A transport (transport.go) sits between a connection's
//     socket and its codec: nil for plain sockets, a userspace TLS layer
//     for https. It is fed the socket's bytes, hands out plaintext, takes
//     plaintext and hands out bytes for the socket; its handshake may finish
//     on another goroutine, which wakes the loop through the poller.
//   - A codec (loopcodec_linux.go) frames exchanges over the plaintext:
//     h1Codec for HTTP/1.1 (one exchange at a time); codecs that carry many
//     exchanges on one connection keep their own table of in-flight jobs.
//
// Below both, the poller (poller_linux.go) is the only code that makes
// system calls; above, the open and closed drivers (loopopen_linux.go,
// loopclosed_linux.go) decide when a job starts, and looptimeout_linux.go
// when one has waited too long.
package exec

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"time"

	"github.com/tressi/tressi/compile"
	"github.com/tressi/tressi/exec/internal/record"
	"github.com/tressi/tressi/exec/internal/run"
	"github.com/tressi/tressi/exec/internal/sys"
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
	// SetUp, when set, is called once the run's set-up is done (plan
	// checked, run directory made), before connections open: the place for
	// process-wide settings, which exec leaves to its caller. tressi's CLI
	// returns what loading and compiling the plan left behind to the OS
	// there (debug.FreeOSMemory), so the heap starts near its working size
	// and the first collection comes when that doubles, not the start-up
	// garbage. The loop engine also needs GOMAXPROCS of 2 or more (each
	// loop holds a P; the recorder needs one of its own, even on one
	// core): Run refuses less.
	SetUp func()
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
	if err := check(s); err != nil {
		return nil, &InputError{Err: err}
	}
	opt.defaults()
	if err := checkStart(opt.StartAt, time.Now(), opt.StartTolerance); err != nil {
		return nil, err
	}
	if err := record.MakeRunDir(opt.OutDir); err != nil {
		return nil, &InputError{Err: err}
	}
	if opt.TPlan != nil {
		if err := record.WriteFile(filepath.Join(opt.OutDir, PlanFile), opt.TPlan); err != nil {
			return nil, recordError(opt.OutDir, fmt.Errorf("writing %s: %w", PlanFile, err))
		}
	}
	out := &Outcome{Dir: opt.OutDir, RunID: newRunID()}
	meta := record.NewMeta(opt.Version, opt.CommandLine)
	meta.RunID, meta.Plan, meta.Hash, meta.Shard = out.RunID, s.Name, s.Hash, opt.Shard.String()
	// meta.json says "running" until the run ends: a run killed or crashed
	// on the way leaves that, and the report tells it from a finished one.
	meta.ExitStatus, meta.Start = record.StatusRunning, time.Now()
	if err := meta.Write(opt.OutDir); err != nil {
		return nil, recordError(opt.OutDir, fmt.Errorf("writing %s: %w", MetaFile, err))
	}
	reserve := sys.ReserveFiles(sys.FilesReserved) // see filereserve.go
	defer func() {
		// No way out of Run (an error on the way, a panic) leaves meta.json
		// saying "running": that word is for a run killed or crashed.
		reserve.Release()
		if meta.ExitStatus == record.StatusRunning {
			meta.End, meta.ExitStatus = time.Now(), "error"
			_ = meta.Write(opt.OutDir)
		}
	}()

	ex := &run.Executor{S: s, Shard: opt.Shard, StopCh: make(chan struct{}), Grace: opt.Grace, MaxSample: opt.MaxBodySample,
		MaxBody: opt.MaxResponseBody, Transport: opt.transport}
	ex.RunTag = runTag(out.RunID)
	out.Start = opt.StartAt
	if out.Start.IsZero() {
		out.Start = time.Now()
	}
	if opt.SetUp != nil {
		opt.SetUp()
	}
	// Checked again after the set-up, which may have taken a while: the
	// run directory then says why it holds no results.
	if err := checkStart(opt.StartAt, time.Now(), opt.StartTolerance); err != nil {
		meta.Start, meta.End, meta.ExitStatus = out.Start, time.Now(), "late_start"
		_ = meta.Write(opt.OutDir)
		return nil, err
	}
	// Now().Add keeps the monotonic reading: instants are immune to wall
	// clock steps, yet instant zero is the shared --start-at.
	ex.Clock.Base = time.Now().Add(time.Until(out.Start))
	cl, err := run.NewClients(s.Targets, &ex.Clock, opt.MaxResponseBody)
	if err != nil {
		return nil, err
	}
	ex.Cl = cl
	defer ex.Cl.Close()
	reqs, names, err := run.PrepareRequests(s, ex.Cl)
	if err != nil {
		return nil, &InputError{Err: err}
	}
	ex.Reqs = reqs
	ex.Cookies = run.NewRunCookies(s)
	if ex.Scen, err = run.NewScenarios(ex); err != nil {
		return nil, &InputError{Err: err}
	}
	eng, err := chooseEngine(ex, opt.Engine)
	if err != nil {
		return nil, err
	}
	if opt.engine != nil {
		eng = opt.engine(ex)
	}
	if eng.Background() && runtime.GOMAXPROCS(0) < 2 {
		return nil, &InputError{Err: fmt.Errorf("the %s engine needs GOMAXPROCS of 2 or more, even on one core (each loop holds a P, and the recorder needs one of its own); "+
			"raise it before exec.Run (runtime.GOMAXPROCS(2)), as tressi's CLI does, or use --engine fasthttp", eng.Name())}
	}
	out.Engine, meta.Engine = eng.Name(), eng.Name()
	// Created before any connection opens, so it never competes with them
	// for a descriptor.
	f, err := os.Create(filepath.Join(opt.OutDir, ResultsFile))
	if err != nil {
		return nil, recordError(opt.OutDir, err)
	}
	defer f.Close()
	if w, ok := eng.(warmer); ok {
		// Connections open before instant zero: a shared --start-at is
		// kept (the warm-up ends a little before it), else the clock
		// starts when the warm-up ends.
		until := ex.Clock.Now() + int64(warmLimit)
		if !opt.StartAt.IsZero() {
			until = min(until, -int64(time.Millisecond))
		}
		meta.Warmup = w.Warm(until)
		if opt.StartAt.IsZero() {
			out.Start = time.Now()
			ex.Clock.Base = out.Start
		}
	}
	overrun := ex.WatchScheduleEnd()

	expect := expectations(s, reqs, len(names))
	// The writer writes straight to the file, without a user-space buffer,
	// so a run killed by SIGKILL leaves every batch written so far readable.
	w, err := results.NewWriter(f, results.Meta{
		Version: opt.Version, RunID: out.RunID, StartUnixNs: out.Start.UnixNano(), ScheduleHash: s.Hash,
		Seed: s.Seed, Shard: opt.Shard, PlanName: s.Name, Expect: expectMap(names, expect),
		Scenarios: run.ScenarioSteps(s), Probe: opt.Probe, Slots: s.Count,
	}, names)
	if err != nil {
		return nil, recordError(opt.OutDir, err)
	}
	ex.Th = run.NewThresholds(s.Thresholds, ex)
	ex.AbortStatus = make([]bool, 1000)
	for _, c := range s.Thresholds.StatusCodes {
		if c >= 0 && c < len(ex.AbortStatus) {
			ex.AbortStatus[c] = true
		}
	}

	ex.Rec = record.NewRecorder(w, eng.Senders(), eng.BatchRows())
	ex.Rec.Observe = opt.Observe
	if s.Thresholds.LiveWindow > 0 {
		ex.Rec.Live = record.NewLiveLatency(s.Thresholds.LiveWindow)
	}
	if eng.Background() {
		// The engine holds its Ps; the recorder gets one of its own (Run
		// refused fewer than 2), at idle priority (see recorder.run).
		ex.Rec.Background = true
	}
	go ex.Rec.Run(func(ep, status uint16) bool { return results.ExpectsStatus(expect[ep], int(status)) })

	if s.Model == compile.Closed {
		ex.Pick = s.Picker()
		ex.Bucks = make([]*run.Bucket, len(s.Entries))
		for i, e := range s.Entries {
			ex.Bucks[i] = run.NewBucket(e.MaxRate)
		}
	}
	if err := eng.Start(); err != nil {
		close(ex.Rec.In)
		<-ex.Rec.Done
		return nil, err
	}
	if opt.Started != nil {
		opt.Started(ex.LiveRun(out.RunID, out.Start, names))
	}
	mon := &monitor{ex: ex, out: opt.Progress, terminal: opt.Terminal, total: s.Duration, watch: opt.Watch}
	if opt.Progress != nil {
		mon.arrivals = arrivalsEnd(s)
	}
	monStop := make(chan struct{})
	monDone := make(chan struct{})
	go func() { mon.run(monStop); close(monDone) }()

	finished := make(chan struct{})
	go func() {
		ex.Wait()
		if w, ok := eng.(interface{ Wait() }); ok {
			w.Wait() // what the engine's workers started (the fasthttp session pool)
		}
		close(finished)
	}()
	select {
	case <-finished:
	case <-opt.Interrupt:
		ex.Stop(true)
	case <-ctx.Done():
		ex.Stop(true)
	case <-ex.Rec.Failed: // nothing sent from now on could be recorded
		ex.Stop(true)
	}
	<-finished
	ex.Settle()
	out.Overran = overrun.Stop()
	close(monStop)
	<-monDone

	close(ex.Rec.In)
	<-ex.Rec.Done
	out.End = time.Now()
	reserve.Release() // for the files written from here on
	werr := ex.Rec.Err
	if ex.EngineErr != nil && werr == nil {
		werr = fmt.Errorf("the %s engine failed: %w; the results hold the slots recorded before it", eng.Name(), ex.EngineErr)
	}
	if ex.StreamErr != nil && werr == nil {
		werr = fmt.Errorf("reading the schedule: %w; the results hold the slots read before it", ex.StreamErr)
	}
	if err := w.Close(); werr == nil && err != nil {
		werr = fmt.Errorf("results: %w", err)
	}
	if err := f.Close(); werr == nil && err != nil {
		werr = err
	}
	record.RedactSamples(ex.Rec.Kept, s.Secrets)
	if err := record.WriteFile(filepath.Join(opt.OutDir, SamplesFile), func(w io.Writer) error {
		return results.WriteSamples(w, ex.Rec.Kept)
	}); werr == nil && err != nil {
		werr = err
	}

	if f, ok := eng.(interface{ Finish(dir string) error }); ok {
		if err := f.Finish(opt.OutDir); werr == nil && err != nil {
			werr = err
		}
	}

	fillOutcome(ex, out)
	meta.Start, meta.End = out.Start, out.End
	ex.Rec.Totals.First.Fill(&meta, opt.StartTolerance)
	meta.Protocols = ex.ConnProtocols()
	meta.ConnectionWaits = ex.ConnWaits.Load()
	meta.Requests, meta.Sent, meta.OK, meta.Thresholds = out.Requests, out.Sent, out.OK, out.ThresholdFailures
	meta.TLS = ex.Cl.TLSMeta(s.Targets)
	if meta.TLS != nil {
		out.TLSHandshakes, out.TLSResumed = meta.TLS.Handshakes, meta.TLS.Resumed
	}
	meta.ExitStatus = exitStatus(out, werr)
	if err := meta.Write(opt.OutDir); werr == nil && err != nil {
		werr = err
	}
	return out, recordError(opt.OutDir, werr)
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
