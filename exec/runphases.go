package exec

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"sync/atomic"
	"time"

	"github.com/tressi/tressi/compile"
	"github.com/tressi/tressi/exec/internal/record"
	"github.com/tressi/tressi/exec/internal/run"
	"github.com/tressi/tressi/exec/internal/sys"
	"github.com/tressi/tressi/results"
)

// runState is one Run on its way through its phases (run.go): begin,
// setUp, openResults, start, await, finish. Each phase fills what the
// next reads; cleanUp undoes what a phase left open whatever way Run ends.
type runState struct {
	s    *compile.Schedule
	opt  Options
	out  *Outcome
	meta record.Meta
	// release gives back the descriptors kept for the run's own files.
	release func()

	ex     *run.Executor
	eng    engine
	names  []string // endpoints, by results index
	expect [][]int  // each endpoint's expected statuses

	file    *os.File // results.arrow
	w       *results.Writer
	overran func() bool // stops the schedule-end watch: did the run reach its bound?

	monStop, monDone chan struct{}
}

// begin checks what Run was given and makes the run directory, with the
// plan and a meta.json that says "running" until the run ends.
func begin(s *compile.Schedule, opt Options) (*runState, error) {
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
	r := &runState{s: s, opt: opt, out: &Outcome{Dir: opt.OutDir, RunID: newRunID()}}
	r.meta = record.NewMeta(opt.Version, opt.CommandLine)
	r.meta.RunID, r.meta.Plan, r.meta.Hash, r.meta.Shard = r.out.RunID, s.Name, s.Hash, opt.Shard.String()
	// meta.json says "running" until the run ends: a run killed or crashed
	// on the way leaves that, and the report tells it from a finished one.
	r.meta.ExitStatus, r.meta.Start = record.StatusRunning, time.Now()
	if err := r.meta.Write(opt.OutDir); err != nil {
		return nil, recordError(opt.OutDir, fmt.Errorf("writing %s: %w", MetaFile, err))
	}
	r.release = sys.ReserveFiles(sys.FilesReserved).Release // see filereserve.go
	return r, nil
}

// cleanUp closes what the phases opened. No way out of Run (an error on
// the way, a panic) leaves meta.json saying "running": that word is for a
// run killed or crashed.
func (r *runState) cleanUp() {
	if r.file != nil {
		r.file.Close()
	}
	if r.ex != nil && r.ex.Cl != nil {
		r.ex.Cl.Close()
	}
	r.release()
	if r.meta.ExitStatus == record.StatusRunning {
		r.meta.End, r.meta.ExitStatus = time.Now(), "error"
		_ = r.meta.Write(r.opt.OutDir)
	}
}

// setUp builds the executor (its clock, clients, requests and sessions)
// and picks the engine: everything that can still fail before a
// connection opens.
func (r *runState) setUp() error {
	s, opt, out := r.s, r.opt, r.out
	ex := &run.Executor{S: s, Shard: opt.Shard, StopCh: make(chan struct{}), Grace: opt.Grace, MaxSample: opt.MaxBodySample,
		MaxBody: opt.MaxResponseBody, Transport: opt.transport}
	r.ex = ex
	ex.RunTag = runTag(out.RunID)
	out.Start = opt.StartAt
	if out.Start.IsZero() {
		out.Start = time.Now()
	}
	// Checked again after the set-up, which may have taken a while: the
	// run directory then says why it holds no results.
	if err := checkStart(opt.StartAt, time.Now(), opt.StartTolerance); err != nil {
		r.meta.Start, r.meta.End, r.meta.ExitStatus = out.Start, time.Now(), "late_start"
		_ = r.meta.Write(opt.OutDir)
		return err
	}
	// Now().Add keeps the monotonic reading: instants are immune to wall
	// clock steps, yet instant zero is the shared --start-at.
	ex.Clock.Base = time.Now().Add(time.Until(out.Start))
	cl, err := run.NewClients(s.Targets, &ex.Clock, opt.MaxResponseBody)
	if err != nil {
		return err
	}
	ex.Cl = cl
	reqs, names, err := run.PrepareRequests(s, ex.Cl)
	if err != nil {
		return &InputError{Err: err}
	}
	ex.Reqs, r.names = reqs, names
	ex.Cookies = run.NewRunCookies(s)
	ex.Redirects, ex.Hops = run.NewRedirectOrigins(s), make([]atomic.Int64, len(names))
	if ex.Scen, err = run.NewScenarios(ex); err != nil {
		return &InputError{Err: err}
	}
	eng, err := chooseEngine(ex, opt.Engine)
	if err != nil {
		return err
	}
	if opt.engine != nil {
		eng = opt.engine(ex)
	}
	if eng.Background() && runtime.GOMAXPROCS(0) < 2 {
		return &InputError{Err: fmt.Errorf("the %s engine needs GOMAXPROCS of 2 or more, even on one core (each loop holds a P, and the recorder needs one of its own); "+
			"raise it before exec.Run (runtime.GOMAXPROCS(2)), as tressi's CLI does, or use --engine fasthttp", eng.Name())}
	}
	r.eng = eng
	out.Engine, r.meta.Engine = eng.Name(), eng.Name()
	return nil
}

// openResults creates results.arrow, lets an engine that warms up open
// its connections (the clock starts after it), and starts the recorder.
func (r *runState) openResults() error {
	s, opt, out, ex, eng := r.s, r.opt, r.out, r.ex, r.eng
	// Created before any connection opens, so it never competes with them
	// for a descriptor.
	f, err := os.Create(filepath.Join(opt.OutDir, ResultsFile))
	if err != nil {
		return recordError(opt.OutDir, err)
	}
	r.file = f
	if w, ok := eng.(warmer); ok {
		// Connections open before instant zero: a shared --start-at is
		// kept (the warm-up ends startLead before it).
		until := ex.Clock.Now() + int64(warmLimit)
		if !opt.StartAt.IsZero() {
			until = min(until, -int64(startLead))
		}
		r.meta.Warmup = w.Warm(until)
	}
	if opt.StartAt.IsZero() {
		out.Start = time.Now().Add(startLead)
		ex.Clock.Base = out.Start
	}
	r.overran = ex.WatchScheduleEnd().Stop

	expect := expectations(s, ex.Reqs, len(r.names))
	r.expect = expect
	// The writer writes straight to the file, without a user-space buffer,
	// so a run killed by SIGKILL leaves every batch written so far readable.
	r.w, err = results.NewWriter(f, results.Meta{
		Version: opt.Version, RunID: out.RunID, StartUnixNs: out.Start.UnixNano(), ScheduleHash: s.Hash,
		Seed: s.Seed, Shard: opt.Shard, PlanName: s.Name, Expect: expectMap(r.names, expect),
		Scenarios: run.ScenarioSteps(s), Probe: opt.Probe, Slots: s.Count, GRPC: grpcEndpoints(s, ex.Reqs, r.names),
	}, r.names)
	if err != nil {
		return recordError(opt.OutDir, err)
	}
	ex.Th = run.NewThresholds(s.Thresholds, ex)
	ex.AbortStatus = make([]bool, 1000)
	for _, c := range s.Thresholds.StatusCodes {
		if c >= 0 && c < len(ex.AbortStatus) {
			ex.AbortStatus[c] = true
		}
	}

	ex.Rec = record.NewRecorder(r.w, eng.Senders(), eng.BatchRows())
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
	if opt.SetUp != nil {
		opt.SetUp(eng.Name())
	}
	return nil
}

// startLead is how long after the warm-up the run's clock starts (or,
// with --start-at, how long before the shared start the warm-up ends):
// room for what still comes before the first slot (the results file's
// header, whose dictionaries arrow-go compresses with a fresh zstd
// encoder, the recorder, the caller's SetUp), which would otherwise make
// the first slots late by its length on the engine's own core.
const startLead = 50 * time.Millisecond

// start starts the engine, then the live view and the progress monitor.
func (r *runState) start() error {
	s, opt, ex := r.s, r.opt, r.ex
	if err := r.eng.Start(); err != nil {
		close(ex.Rec.In)
		<-ex.Rec.Done
		return err
	}
	if opt.Started != nil {
		opt.Started(ex.LiveRun(r.out.RunID, r.out.Start, r.names))
	}
	mon := &monitor{ex: ex, out: opt.Progress, terminal: opt.Terminal, total: s.Duration, watch: opt.Watch}
	if opt.Progress != nil {
		mon.arrivals = arrivalsEnd(s)
	}
	r.monStop, r.monDone = make(chan struct{}), make(chan struct{})
	go func() { mon.run(r.monStop); close(r.monDone) }()
	return nil
}

// await waits for what the engine started to end, stopping it early on an
// interrupt, a cancelled ctx or a recorder that can write no more; then it
// ends the monitor and the recorder.
func (r *runState) await(ctx context.Context) {
	ex := r.ex
	finished := make(chan struct{})
	go func() {
		ex.Wait()
		if w, ok := r.eng.(interface{ Wait() }); ok {
			w.Wait() // what the engine's workers started (the fasthttp session pool)
		}
		close(finished)
	}()
	select {
	case <-finished:
	case <-r.opt.Interrupt:
		ex.Stop(true)
	case <-ctx.Done():
		ex.Stop(true)
	case <-ex.Rec.Failed: // nothing sent from now on could be recorded
		ex.Stop(true)
	}
	<-finished
	ex.Settle()
	r.out.Overran = r.overran()
	close(r.monStop)
	<-r.monDone

	close(ex.Rec.In)
	<-ex.Rec.Done
	r.out.End = time.Now()
}

// finish closes results.arrow, writes what the run leaves beside it
// (samples, the engine's own files, meta.json) and fills the outcome. The
// error is the first thing that failed.
func (r *runState) finish() error {
	s, opt, out, ex := r.s, r.opt, r.out, r.ex
	r.release() // for the files written from here on
	werr := ex.Rec.Err
	if ex.EngineErr != nil && werr == nil {
		werr = fmt.Errorf("the %s engine failed: %w; the results hold the slots recorded before it", r.eng.Name(), ex.EngineErr)
	}
	if ex.StreamErr != nil && werr == nil {
		werr = fmt.Errorf("reading the schedule: %w; the results hold the slots read before it", ex.StreamErr)
	}
	if err := r.w.Close(); werr == nil && err != nil {
		werr = fmt.Errorf("results: %w", err)
	}
	if err := r.file.Close(); werr == nil && err != nil {
		werr = err
	}
	record.RedactSamples(ex.Rec.Kept, s.Secrets)
	if err := record.WriteFile(filepath.Join(opt.OutDir, SamplesFile), func(w io.Writer) error {
		return results.WriteSamples(w, ex.Rec.Kept)
	}); werr == nil && err != nil {
		werr = err
	}

	if f, ok := r.eng.(interface{ Finish(dir string) error }); ok {
		if err := f.Finish(opt.OutDir); werr == nil && err != nil {
			werr = err
		}
	}

	fillOutcome(ex, out)
	meta := &r.meta
	meta.Start, meta.End = out.Start, out.End
	ex.Rec.Totals.First.Fill(meta, opt.StartTolerance)
	meta.Protocols = ex.ConnProtocols()
	meta.ConnectionWaits = ex.ConnWaits.Load()
	meta.IOUringConns = ex.RingConns.Load()
	meta.Redirects = ex.HopCounts(r.names)
	meta.GRPCStreams = ex.StreamFigures()
	meta.Checks = checkTallies(ex)
	meta.Requests, meta.Sent, meta.OK, meta.Thresholds = out.Requests, out.Sent, out.OK, out.ThresholdFailures
	meta.TLS = ex.Cl.TLSMeta(s.Targets)
	if meta.TLS != nil {
		out.TLSHandshakes, out.TLSResumed = meta.TLS.Handshakes, meta.TLS.Resumed
	}
	meta.ExitStatus = exitStatus(out, werr)
	if err := meta.Write(opt.OutDir); werr == nil && err != nil {
		werr = err
	}
	return werr
}
