// Package exec replays a compiled schedule against real servers and records
// one row per slot into the run directory's Arrow files, with latency
// measured from each slot's due instant so a stalling server cannot hide
// behind coordinated omission. Two engines send: an epoll event loop per
// spare core on raw sockets for plain-HTTP plans (loop_linux.go), and
// lock-free fasthttp workers for TLS and scenarios (worker.go, pacer.go,
// session.go); engine.go picks one.
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
	"runtime/debug"
	"sync/atomic"
	"time"

	"github.com/tressi/tressi/compile"
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
}

// The engines.
const (
	EngineLoop     = "loop"
	EngineFasthttp = "fasthttp"
)

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

	Interrupted bool // stopped by Options.Interrupt or the context
	EarlyExit   bool // stopped by a live threshold
	// Overran: work was still running at the schedule's end plus the
	// grace, and was cut off then (see schedule_end.go).
	Overran bool
	// ThresholdFailures lists every failed threshold as "name: detail".
	ThresholdFailures []string
}

// Passed reports whether the run completed with every threshold met.
func (o *Outcome) Passed() bool {
	return !o.Interrupted && !o.EarlyExit && len(o.ThresholdFailures) == 0
}

// Run replays s and writes the run directory opt.OutDir. It returns an
// error only when the run could not be carried out or recorded; failed
// thresholds and interruptions are in the Outcome.
func Run(ctx context.Context, s *compile.Schedule, opt Options) (*Outcome, error) {
	if err := check(s); err != nil {
		return nil, err
	}
	if opt.Grace <= 0 {
		opt.Grace = 2 * time.Second
	}
	if opt.MaxBodySample <= 0 {
		opt.MaxBodySample = results.SampleBodyLimit
	}
	if opt.MaxResponseBody <= 0 {
		opt.MaxResponseBody = defaultMaxResponseBody
	}
	if opt.Shard.Count == 0 {
		opt.Shard = results.Shard{Index: 0, Count: 1}
	}
	if err := makeRunDir(opt.OutDir); err != nil {
		return nil, err
	}
	if opt.TPlan != nil {
		if err := writeFile(filepath.Join(opt.OutDir, PlanFile), opt.TPlan); err != nil {
			return nil, recordError(opt.OutDir, fmt.Errorf("writing %s: %w", PlanFile, err))
		}
	}
	out := &Outcome{Dir: opt.OutDir, RunID: newRunID()}
	meta := newMeta(opt.Version, opt.CommandLine)
	meta.RunID, meta.Plan, meta.Hash, meta.Shard = out.RunID, s.Name, s.Hash, opt.Shard.String()
	// meta.json says "running" until the run ends: a run killed or crashed
	// on the way leaves that, and the report tells it from a finished one.
	meta.ExitStatus, meta.Start = statusRunning, time.Now()
	if err := meta.write(opt.OutDir); err != nil {
		return nil, recordError(opt.OutDir, fmt.Errorf("writing %s: %w", MetaFile, err))
	}

	ex := &executor{s: s, shard: opt.Shard, stopCh: make(chan struct{}), grace: opt.Grace, maxSample: opt.MaxBodySample,
		maxBody: opt.MaxResponseBody}
	out.Start = opt.StartAt
	if out.Start.IsZero() {
		out.Start = time.Now()
	}
	// What loading and compiling the plan left behind goes back now, not
	// in the middle of the run: the heap then starts near its working size,
	// and the first collection comes when that size doubles, not when the
	// start-up garbage does (a long run would otherwise peak at whatever
	// the start-up left, plus a run's worth of growth).
	debug.FreeOSMemory()
	// Now().Add keeps the monotonic reading: instants are immune to wall
	// clock steps, yet instant zero is the shared --start-at.
	ex.clock.base = time.Now().Add(time.Until(out.Start))
	overrun := ex.watchScheduleEnd()
	ex.cl = newClients(s.Targets, &ex.clock, opt.MaxResponseBody)
	defer ex.cl.close()
	reqs, names, err := prepareRequests(s, ex.cl)
	if err != nil {
		return nil, err
	}
	ex.reqs = reqs
	if ex.scen, err = newScenarios(ex); err != nil {
		return nil, err
	}
	choice, err := chooseEngine(s, opt.Shard, opt.Engine)
	if err != nil {
		return nil, err
	}
	engine := choice.name
	out.Engine, meta.Engine = engine, engine

	f, err := os.Create(filepath.Join(opt.OutDir, ResultsFile))
	if err != nil {
		return nil, recordError(opt.OutDir, err)
	}
	defer f.Close()
	expect := expectations(s, reqs, len(names))
	// The writer writes straight to the file, without a user-space buffer,
	// so a run killed by SIGKILL leaves every batch written so far readable.
	w, err := results.NewWriter(f, results.Meta{
		Version: opt.Version, RunID: out.RunID, StartUnixNs: out.Start.UnixNano(), ScheduleHash: s.Hash,
		Seed: s.Seed, Shard: opt.Shard, PlanName: s.Name, Expect: expectMap(names, expect),
		Scenarios: scenarioSteps(s), Slots: s.Count,
	}, names)
	if err != nil {
		return nil, recordError(opt.OutDir, err)
	}
	ex.th = newThresholds(s.Thresholds, ex)
	ex.abortStatus = make([]bool, 1000)
	for _, c := range s.Thresholds.StatusCodes {
		if c >= 0 && c < len(ex.abortStatus) {
			ex.abortStatus[c] = true
		}
	}

	workers := len(s.Users)
	if s.Model == compile.Open {
		workers = workerCount(s, s.Count)
	}
	if engine == EngineLoop {
		workers = choice.loops
	}
	// The loop engine's recorder runs at idle priority and never delays a
	// burst, so its open model takes the large batches too.
	batch := closedBatchRows
	if s.Model == compile.Open && engine != EngineLoop {
		batch = openBatchRows
	}
	ex.rec = newRecorder(w, workers, batch)
	if engine == EngineLoop {
		// The loops hold their Ps; the recorder gets one of its own even
		// on one core, and idle priority there (see recorder.run).
		if runtime.GOMAXPROCS(0) == 1 {
			defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
		}
		ex.rec.background = true
	}
	go ex.rec.run(func(ep, status uint16) bool { return results.ExpectsStatus(expect[ep], int(status)) })

	var session atomic.Uint64
	if s.Model == compile.Closed {
		ex.pick = s.Picker()
		ex.bucks = make([]*bucket, len(s.Entries))
		for i, e := range s.Entries {
			ex.bucks[i] = newBucket(e.MaxRate)
		}
	}
	switch {
	case engine == EngineLoop:
		loops, err := ex.newLoops(choice.loops, choice.addrs)
		if err != nil {
			close(ex.rec.in)
			<-ex.rec.done
			return nil, fmt.Errorf("starting the loop engine: %w (--engine fasthttp runs without it)", err)
		}
		if s.Model == compile.Open {
			ex.startLoopsOpen(loops, s.Slots)
		} else {
			ex.startLoopsClosed(loops, &session)
		}
	case s.Model == compile.Open:
		ex.startOpen(s.Slots())
	default:
		ex.startClosed(&session)
	}
	mon := &monitor{ex: ex, out: opt.Progress, terminal: opt.Terminal, total: s.Duration}
	monStop := make(chan struct{})
	monDone := make(chan struct{})
	go func() { mon.run(monStop); close(monDone) }()

	finished := make(chan struct{})
	go func() { ex.wait(); close(finished) }()
	select {
	case <-finished:
	case <-opt.Interrupt:
		ex.stop(true)
	case <-ctx.Done():
		ex.stop(true)
	case <-ex.rec.failed: // nothing sent from now on could be recorded
		ex.stop(true)
	}
	<-finished
	out.Overran = overrun.stop()
	close(monStop)
	<-monDone

	close(ex.rec.in)
	<-ex.rec.done
	out.End = time.Now()
	werr := ex.rec.err
	if ex.streamErr != nil && werr == nil {
		werr = fmt.Errorf("reading the schedule: %w; the results hold the slots read before it", ex.streamErr)
	}
	if err := w.Close(); werr == nil && err != nil {
		werr = fmt.Errorf("results: %w", err)
	}
	if err := f.Close(); werr == nil && err != nil {
		werr = err
	}
	redactSamples(ex.rec.kept, s.Secrets)
	if err := writeFile(filepath.Join(opt.OutDir, SamplesFile), func(w io.Writer) error {
		return results.WriteSamples(w, ex.rec.kept)
	}); werr == nil && err != nil {
		werr = err
	}

	ex.th.final(ex.rec.quantile)
	ex.fillOutcome(out)
	meta.Start, meta.End = out.Start, out.End
	meta.Requests, meta.Sent, meta.OK, meta.Thresholds = out.Requests, out.Sent, out.OK, out.ThresholdFailures
	meta.ExitStatus = exitStatus(out, werr)
	if err := meta.write(opt.OutDir); werr == nil && err != nil {
		werr = err
	}
	return out, recordError(opt.OutDir, werr)
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
			if r := st.Request; r < 0 || r >= len(s.Requests) {
				return fmt.Errorf("entry %q names request %d, the schedule has %d; recompile the plan", e.Name, r, len(s.Requests))
			}
		}
	}
	if s.Model != compile.Open && s.Model != compile.Closed {
		return fmt.Errorf("the schedule has no load model")
	}
	return nil
}

// expectations gives each endpoint (results index) its expected statuses:
// those of the first request carrying its name.
func expectations(s *compile.Schedule, reqs []preparedRequest, n int) [][]int {
	out := make([][]int, n)
	seen := make([]bool, n)
	for i := range reqs {
		if ep := reqs[i].endpoint; !seen[ep] {
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

func (ex *executor) fillOutcome(out *Outcome) {
	t := &ex.rec.totals
	out.Requests, out.Sent, out.OK = t.Requests, t.Sent, t.OK
	out.ErrorKinds, out.Status = t.errorKinds(), t.statuses()
	out.Interrupted, out.EarlyExit = ex.interrupted.Load(), ex.earlyExit.Load()
	out.ThresholdFailures = ex.th.list()
	if ex.rec.latency.TotalCount() > 0 {
		out.Latency = map[string]time.Duration{}
		for _, p := range []struct {
			name string
			q    float64
		}{{"p50", 50}, {"p90", 90}, {"p95", 95}, {"p99", 99}, {"p999", 99.9}} {
			out.Latency[p.name] = time.Duration(ex.rec.quantile(p.q))
		}
	}
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

func writeFile(path string, write func(io.Writer) error) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := write(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
