package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"runtime/pprof"
	"runtime/trace"
	"sort"
	"strings"
	"syscall"
	"testing/fstest"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"github.com/zclconf/go-cty/cty"
	ctyjson "github.com/zclconf/go-cty/cty/json"

	"github.com/tressi/tressi/compile"
	"github.com/tressi/tressi/exec"
	"github.com/tressi/tressi/plan"
	"github.com/tressi/tressi/report"
	"github.com/tressi/tressi/results"
)

func init() { register(newApply) }

func newApply(e *env) *cobra.Command {
	var (
		f       planFlags
		out     string
		quiet   bool
		shard   string
		startAt string
		cpuProf string
		traceTo string
		engine  string
		// expectHash is the schedule the shard must run; startTolerance how
		// late it may reach --start-at.
		expectHash     string
		startTolerance time.Duration
		lf             liveFlags
	)
	cmd := &cobra.Command{
		Use:   "apply [PLANFILE.tplan or ARCHIVE or PATH]",
		Short: "Run a plan (or a compiled .tplan) and record every request",
		Long: "Apply replays the plan's schedule against its targets and writes a run directory:\n" +
			"results.arrow (one row per request), samples.arrow, plan.tplan and meta.json.\n" +
			"The first Ctrl-C stops starting requests and keeps the results (exit 130); a second\n" +
			"exits at once. Exit 2 when a threshold failed or ended the run early, or when not one\n" +
			"request succeeded (a plan that expects that sets allow_all_failed = true in thresholds).\n" +
			"A plan whose load has a search block runs its probes instead, into one run directory\n" +
			"(search.json + probe-NN/), and prints max_rate; exit 2 when no probe passed; --dashboard,\n" +
			"--metrics and --remote-write show the probes one after another, with the probe table.",
		Example: "  tressi apply examples/quickstart.hcl --var base_url=http://127.0.0.1:8080\n" +
			"  tressi apply run.tplan -o runs/today -q\n" +
			"  tressi apply run.tplan --shard 0/4 --start-at 2026-01-01T12:00:00Z\n" +
			"  tressi apply plan/ --shard 0/4 --start-at 2026-01-01T12:00:00Z --expect-hash sha256:fefe4cbd5fde\n" +
			"  tressi apply --json > report.json",
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			// Set-up's heap (the plan's loading and compiling, the results
			// opened, every connection's buffers) on huge pages: a fault
			// each 2 MB, not each 4 KiB (bench/README.md, session 14).
			preferHugeHeap(32 << 20)
			opt := exec.Options{Version: Version, Grace: 2 * time.Second, Engine: engine, StartTolerance: startTolerance}
			var err error
			if engine != "" && engine != exec.EngineLoop && engine != exec.EngineFasthttp {
				return withCode(ExitInvalid, fmt.Errorf("--engine %q: want %s or %s", engine, exec.EngineLoop, exec.EngineFasthttp))
			}
			if shard != "" {
				if opt.Shard, err = results.ParseShard(shard); err != nil {
					return withCode(ExitInvalid, err)
				}
			}
			if startAt != "" {
				if opt.StartAt, err = time.Parse(time.RFC3339Nano, startAt); err != nil {
					return withCode(ExitInvalid, fmt.Errorf("--start-at %q: want an RFC 3339 time such as 2025-01-02T15:04:05Z", startAt))
				}
			}
			if startTolerance <= 0 {
				return withCode(ExitInvalid, fmt.Errorf("--start-tolerance %s: want a duration above zero, such as 1s", startTolerance))
			}
			path, cleanup, err := replayPath(e, planPath(args))
			if err != nil {
				return err
			}
			defer cleanup()
			if p, files, diags := searchPlanAt(e, path, &f); p != nil {
				opt.OutDir = out
				opt.CommandLine = commandLine(cmd, args, f.vars, sensitiveVars(p))
				return applySearch(e, p, files, diags, &f, opt, runOutput{json: f.json, quiet: quiet, live: &lf})
			}
			s, tplan, sensitive, err := loadSchedule(e, path, &f, !quiet && !f.json)
			if err != nil {
				return err
			}
			if err := checkExpectedHash(expectHash, s.Hash); err != nil {
				return withCode(ExitInvalid, err)
			}
			opt.TPlan = tplan
			opt.CommandLine = commandLine(cmd, args, f.vars, sensitive)
			opt.OutDir = out
			if cpuProf != "" {
				stop, err := startCPUProfile(cpuProf)
				if err != nil {
					return withCode(ExitInvalid, err)
				}
				defer stop()
			}
			if traceTo != "" {
				stop, err := startTrace(traceTo)
				if err != nil {
					return withCode(ExitInvalid, err)
				}
				defer stop()
			}
			return runAndReport(e, s, opt, runOutput{json: f.json, quiet: quiet, live: &lf})
		},
	}
	f.bind(cmd)
	fl := cmd.Flags()
	fl.StringVarP(&out, "out", "o", "", "run directory to create (default tressi-runs/<plan>-<UTC time>)")
	fl.BoolVarP(&quiet, "quiet", "q", false, "print neither progress, warnings nor the summary")
	fl.StringVar(&shard, "shard", "", "run stripe i of n of the schedule, as i/n (slot k belongs to shard k mod n)")
	fl.StringVar(&startAt, "start-at", "", "start at this wall-clock time (RFC 3339), so shards start together")
	fl.StringVar(&expectHash, "expect-hash", "", "refuse to run unless the plan compiles to this schedule `hash` (as tressi plan prints it):\n"+
		"shards that compile the plan's sources themselves then all run one schedule")
	fl.DurationVar(&startTolerance, "start-tolerance", exec.DefaultStartTolerance, "refuse to run when --start-at has passed by more than this")
	fl.StringVar(&engine, "engine", "", "what sends the requests: loop (one epoll loop per core: HTTP/1.1, HTTP/2, TLS,\n"+
		"scenarios, WebSocket) or fasthttp (HTTP/1.1 and TLS, endpoints and scenarios, no HTTP/2);\n"+
		"default: loop, or fasthttp where the loop cannot run (not Linux)")
	lf.bind(fl)
	// A developer's flag: profile the executor on a real run.
	fl.StringVar(&cpuProf, "cpuprofile", "", "write a CPU profile of the run to this file")
	_ = fl.MarkHidden("cpuprofile")
	// And trace it: which goroutine ran on which thread, and when (go tool trace).
	fl.StringVar(&traceTo, "trace", "", "write a Go execution trace of the run to this file")
	_ = fl.MarkHidden("trace")
	return cmd
}

// startCPUProfile profiles the process into path until stop is called.
func startCPUProfile(path string) (stop func(), err error) {
	return startWriting(path, pprof.StartCPUProfile, pprof.StopCPUProfile)
}

// startTrace writes the runtime's execution trace into path until stop is
// called.
func startTrace(path string) (stop func(), err error) {
	return startWriting(path, trace.Start, trace.Stop)
}

// startWriting creates path and starts a runtime recorder writing into it;
// stop ends the recorder, then the file.
func startWriting(path string, start func(io.Writer) error, end func()) (stop func(), err error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	if err := start(f); err != nil {
		f.Close()
		return nil, err
	}
	return func() { end(); f.Close() }, nil
}

// loadSchedule is apply's single seam to the plan: a .tplan is replayed as
// compiled; anything else is loaded and compiled now. It also returns what
// writes plan.tplan into the run directory and the sensitive variables'
// names (for redacting the command line). Warnings are printed only when
// warn is set: --quiet means quiet.
func loadSchedule(e *env, path string, f *planFlags, warn bool) (*compile.Schedule, func(io.Writer) error, map[string]bool, error) {
	if strings.HasSuffix(path, ".tplan") || sniffInput(path) == inputTPlan {
		return loadTPlan(e, path, f)
	}
	p, s, files, diags := compilePlan(e, path, f)
	if s == nil {
		writeDiagnostics(diagStream(e, f.json), files, diags, f.json)
		return nil, nil, nil, withCode(ExitInvalid, nil)
	}
	if warn {
		writeDiagnostics(e.stderr, files, diags, false)
	}
	return s, func(w io.Writer) error { return compile.WriteTPlan(w, s, p) }, sensitiveVars(p), nil
}

func loadTPlan(e *env, path string, f *planFlags) (*compile.Schedule, func(io.Writer) error, map[string]bool, error) {
	// The schedule streams its slots from the file while the run goes on,
	// so the file stays open for the life of the command.
	fh, err := os.Open(path)
	if err != nil {
		return nil, nil, nil, withCode(ExitInvalid, err)
	}
	tp, err := compile.ReadTPlan(fh)
	if err != nil {
		fh.Close()
		return nil, nil, nil, withCode(ExitInvalid, fmt.Errorf("%s: %w", path, err))
	}
	for _, name := range plan.OutsideFiles(tp.PlanPath, tp.Sources) {
		fmt.Fprintf(e.stderr, "Warning: %s embeds %s, outside the plan's directory %s: check you meant to share it.\n",
			path, name, filepath.Dir(tp.PlanPath))
	}
	if len(tp.Sensitive) > 0 {
		defer fh.Close()
		return recompileTPlan(e, path, tp, f)
	}
	copyPlan := func(w io.Writer) error {
		src, err := os.Open(path)
		if err != nil {
			return err
		}
		defer src.Close()
		_, err = io.Copy(w, src)
		return err
	}
	return tp.Schedule, copyPlan, nil, nil
}

// recompileTPlan replays a .tplan whose sensitive variables were left out:
// it compiles the stored sources again with the stored values plus the
// secrets the user supplies now (--var or TRESSI_VAR_*), and checks the
// result is the schedule that was planned.
func recompileTPlan(e *env, path string, tp *compile.TPlan, f *planFlags) (*compile.Schedule, func(io.Writer) error, map[string]bool, error) {
	if tp.PlanPath == "" {
		return nil, nil, nil, withCode(ExitInvalid, fmt.Errorf("%s leaves out the sensitive variables %s and predates recompiling: apply the plan's sources with those variables set",
			path, strings.Join(tp.Sensitive, ", ")))
	}
	fsys, moved := fstest.MapFS{}, map[string]string{}
	for name, data := range tp.Sources {
		n := filepath.ToSlash(filepath.Clean(name))
		fsys[strings.TrimPrefix(n, "/")] = &fstest.MapFile{Data: data}
		if strings.HasPrefix(n, "/") {
			moved[n] = strings.TrimPrefix(n, "/") // a variable may name it so
		}
	}
	values, err := tp.Values()
	if err != nil {
		return nil, nil, nil, withCode(ExitInvalid, fmt.Errorf("%s: %w", path, err))
	}
	var vars []plan.VarArg
	for name, v := range values {
		vars = append(vars, plan.VarArg{Value: name + "=" + hclLiteral(v)})
	}
	sort.Slice(vars, func(i, j int) bool { return vars[i].Value < vars[j].Value })
	vars = append(vars, f.vars...) // the user's word wins
	p, files, diags := plan.Load(plan.Options{
		Path: strings.TrimPrefix(filepath.ToSlash(tp.PlanPath), "/"), FS: fsys, Moved: moved, Vars: vars, Env: e.environ,
		Descriptors: tplanDescriptors(tp.Schedule), // gRPC schemas: no server needed, reflection or not
	})
	if p == nil {
		writeDiagnostics(diagStream(e, f.json), files, diags, f.json)
		return nil, nil, nil, withCode(ExitInvalid, fmt.Errorf("%s: its plan needs the sensitive variables %s: pass them with --var or TRESSI_VAR_<name>",
			path, strings.Join(tp.Sensitive, ", ")))
	}
	p.MaxSlots = f.maxSlots
	s, cdiags := compile.Compile(p)
	if cdiags.HasErrors() {
		writeDiagnostics(diagStream(e, f.json), files, cdiags, f.json)
		return nil, nil, nil, withCode(ExitInvalid, nil)
	}
	if s.Hash != tp.Schedule.Hash {
		fmt.Fprintf(e.stderr, "Warning: %s was planned as schedule %s but compiles to %s now: a sensitive variable has another value than at plan time, so the requests differ.\n",
			path, short(tp.Schedule.Hash), short(s.Hash))
	}
	return s, func(w io.Writer) error { return compile.WriteTPlan(w, s, p) }, sensitiveVars(p), nil
}

// hclLiteral writes a stored variable value back as --var text: strings raw
// (as --var takes them for string variables), anything else as JSON, which
// is valid HCL expression syntax.
func hclLiteral(v cty.Value) string {
	if v.Type() == cty.String && v.IsKnown() && !v.IsNull() {
		return v.AsString()
	}
	b, err := ctyjson.Marshal(v, v.Type())
	if err != nil {
		return ""
	}
	return string(b)
}

func short(hash string) string {
	if len(hash) > 12 {
		return hash[:12]
	}
	return hash
}

func sensitiveVars(p *plan.Plan) map[string]bool {
	m := map[string]bool{}
	for _, v := range p.Variables {
		if v.Sensitive {
			m[v.Name] = true
		}
	}
	return m
}

// commandLine rebuilds the command for meta.json with the values of
// sensitive variables replaced by "(sensitive)".
func commandLine(cmd *cobra.Command, args []string, vars []plan.VarArg, sensitive map[string]bool) string {
	parts := []string{"tressi", cmd.Name()}
	parts = append(parts, args...)
	cmd.Flags().Visit(func(fl *pflag.Flag) {
		switch fl.Name {
		case "var", "var-file":
		case "remote-write-header": // credentials: never written down
			parts = append(parts, "--"+fl.Name+"=(sensitive)")
		case "remote-write":
			parts = append(parts, "--"+fl.Name+"="+redactURL(fl.Value.String()))
		default:
			parts = append(parts, "--"+fl.Name+"="+fl.Value.String())
		}
	})
	for _, v := range vars {
		if v.File {
			parts = append(parts, "--var-file="+v.Value)
			continue
		}
		name, _, _ := strings.Cut(v.Value, "=")
		if sensitive[strings.TrimSpace(name)] {
			parts = append(parts, "--var="+name+"=(sensitive)")
		} else {
			parts = append(parts, "--var="+v.Value)
		}
	}
	return strings.Join(parts, " ")
}

// catchSignals turns the first SIGINT/SIGTERM into closing the returned
// channel (a graceful stop that keeps the results) and exits at once with
// 130 on the second, when the user really wants out.
func catchSignals(e *env) (<-chan struct{}, func()) {
	sig := make(chan os.Signal, 2)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	interrupt := make(chan struct{})
	done := make(chan struct{})
	go func() {
		select {
		case <-sig:
			fmt.Fprintln(e.stderr, "\nInterrupted: finishing in-flight requests and saving the results (again to quit now)")
			close(interrupt)
		case <-done:
			return
		}
		select {
		case <-sig:
			os.Exit(ExitInterrupted)
		case <-done:
		}
	}()
	return interrupt, func() { signal.Stop(sig); close(done) }
}

// runOutput says what a run prints, and which live views it serves.
type runOutput struct {
	json, quiet bool
	live        *liveFlags
}

// runAndReport runs s, prints its report and turns the outcome into the
// exit code: apply's and demo's common end.
func runAndReport(e *env, s *compile.Schedule, opt exec.Options, out runOutput) error {
	if opt.OutDir == "" {
		start := opt.StartAt
		if start.IsZero() {
			start = time.Now()
		}
		opt.OutDir = freeRunDir(exec.DefaultRunDir(s.Name, start))
	}
	if !out.quiet && !out.json {
		opt.Progress, opt.Terminal = e.stderr, isTerminal(e.stderr)
	}
	if w := exec.FileLimitWarning(s); w != "" {
		fmt.Fprintln(e.stderr, "Warning: "+w)
	}
	interrupt, release := catchSignals(e)
	defer release()
	opt.Interrupt = interrupt
	defer prepareProcess(&opt, s.Model == compile.Open)()
	lv, err := startLive(e, s, &opt, out.live)
	if err != nil {
		return withCode(ExitInvalid, err)
	}
	defer lv.close(interrupt) // after the summary is out

	o, err := exec.Run(context.Background(), s, opt)
	lv.finish()
	if err != nil {
		code := runErrorCode(err)                                              // a RecordError (disk full) is an internal error, at any time
		return withCode(code, fmt.Errorf("%s", s.Secrets.String(err.Error()))) // a dial error names the host
	}
	th := &s.Thresholds
	if out.quiet && !out.json && !th.Any() {
		// Nothing to print and no threshold to judge: reading the results
		// back would only cost time (a second per five million rows).
		if o.Interrupted {
			return withCode(ExitInterrupted, nil)
		}
		if !o.Passed() { // all_failed, every run's check
			return withCode(ExitThresholds, nil)
		}
		return nil
	}
	rep, err := reportRun(o, th)
	if err != nil {
		return withCode(ExitInternal, err)
	}
	if out.json {
		err = printJSON(e, rep)
	} else if !out.quiet {
		err = writeApplySummary(e.stdout, o, rep)
	}
	if err != nil {
		return withCode(ExitInternal, err)
	}
	if o.EarlyExit {
		// Exit 2 says a threshold failed; this says which one stopped
		// the run, even under --quiet.
		fmt.Fprintf(e.stderr, "Stopped early by a live threshold: %s. The %d requests never sent and %d cut off in flight are not counted as errors.\n",
			earlyExitReason(o.Thresholds), rep.Summary.NotSent, rep.Summary.Interrupted)
	}
	// The exit code comes from the run's one verdict (exec's, which
	// meta.json holds too), not from a second evaluation.
	switch {
	case o.Interrupted:
		return withCode(ExitInterrupted, nil)
	case !o.Passed():
		return withCode(ExitThresholds, nil)
	}
	return nil
}

// earlyExitReason is what stopped a run early: the early_exit verdict's
// detail, the live failures as they stopped it.
func earlyExitReason(v []results.ThresholdResult) string {
	for _, r := range v {
		if r.Name == "early_exit" && r.Detail != "" {
			return r.Detail
		}
	}
	return "early_exit"
}

// runErrorCode is the exit code of an error exec.Run returned: invalid
// input when it says what the user gave was wrong; otherwise the engine
// failed to start or the run could not be recorded, which nothing in the
// plan or the flags can fix.
func runErrorCode(err error) int {
	var input *exec.InputError
	if errors.As(err, &input) {
		return ExitInvalid
	}
	return ExitInternal
}

// freeRunDir returns dir, or dir-2, dir-3, … when runs started within the
// same second already took it: a default never collides with a kept run.
func freeRunDir(dir string) string {
	free := dir
	for i := 2; ; i++ {
		if _, err := os.Stat(free); os.IsNotExist(err) {
			return free
		}
		free = fmt.Sprintf("%s-%d", dir, i)
	}
}

// reportRun summarises the finished run with the same code as `tressi
// report`; its thresholds are the run's verdict (the outcome's), which
// also says what only the live run knows: an early exit.
func reportRun(o *exec.Outcome, th *results.Thresholds) (*report.Report, error) {
	rep, err := report.Build([]string{o.Dir}, report.Options{Thresholds: th})
	if err != nil {
		return nil, fmt.Errorf("summarising the run in %s: %w", o.Dir, err)
	}
	rep.Thresholds = o.Thresholds
	if o.Interrupted {
		// The report's first lines say so (meta.json's exit_status);
		// JSON readers find it here too.
		rep.Warnings = append(rep.Warnings, "interrupted: requests in flight are recorded as interrupted, unstarted ones as not_sent")
	}
	return rep, nil
}

// writeApplySummary prints the run's text report and where it was kept.
func writeApplySummary(w io.Writer, o *exec.Outcome, rep *report.Report) error {
	if err := rep.Render(w, report.Text); err != nil {
		return err
	}
	_, err := fmt.Fprintf(w, "\nRun saved in %s (tressi report %s --format html -o report.html)\n", o.Dir, o.Dir)
	return err
}

// tplanDescriptors are the gRPC targets' schemas a .tplan embeds, by
// target name, for a recompile that needs neither files nor server.
func tplanDescriptors(s *compile.Schedule) map[string][]byte {
	out := map[string][]byte{}
	for _, t := range s.Targets {
		if t.GRPC != nil {
			out[t.Name] = t.GRPC.Protoset
		}
	}
	return out
}
