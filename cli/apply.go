package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/tressi/tressi/compile"
	"github.com/tressi/tressi/exec"
	"github.com/tressi/tressi/plan"
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
	)
	cmd := &cobra.Command{
		Use:   "apply [PLANFILE.tplan or PATH]",
		Short: "Run a plan (or a compiled .tplan) and record every request",
		Long: "Apply replays the plan's schedule against its targets and writes a run directory:\n" +
			"results.arrow (one row per request), samples.arrow, plan.tplan and meta.json.\n" +
			"The first Ctrl-C stops starting requests and keeps the results (exit 130); a second\n" +
			"exits at once. Exit 2 when a threshold failed or ended the run early.",
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opt := exec.Options{Version: Version, Grace: 2 * time.Second}
			var err error
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
			s, tplan, sensitive, err := loadSchedule(e, planPath(args), &f)
			if err != nil {
				return err
			}
			opt.TPlan = tplan
			opt.CommandLine = commandLine(cmd, args, f.vars, sensitive)
			opt.OutDir = out
			if opt.OutDir == "" {
				start := opt.StartAt
				if start.IsZero() {
					start = time.Now()
				}
				opt.OutDir = exec.DefaultRunDir(s.Name, start)
			}
			if !quiet && !f.json {
				opt.Progress, opt.Terminal = e.stderr, isTerminal(e.stderr)
			}
			interrupt, release := catchSignals(e)
			defer release()
			opt.Interrupt = interrupt

			o, err := exec.Run(context.Background(), s, opt)
			if err != nil {
				if o == nil {
					return withCode(ExitInvalid, err)
				}
				return withCode(ExitInternal, err)
			}
			if f.json {
				err = printJSON(e, applyJSON(o))
			} else if !quiet {
				err = writeApplySummary(e.stdout, o)
			}
			if err != nil {
				return withCode(ExitInternal, err)
			}
			switch {
			case o.Interrupted:
				return withCode(ExitInterrupted, nil)
			case !o.Passed():
				return withCode(ExitThresholds, nil)
			}
			return nil
		},
	}
	f.bind(cmd)
	fl := cmd.Flags()
	fl.StringVar(&out, "out", "", "run directory to create (default tressi-runs/<plan>-<UTC time>)")
	fl.BoolVar(&quiet, "quiet", false, "print neither progress nor the summary")
	fl.StringVar(&shard, "shard", "", "run stripe i of n of the schedule, as i/n (slot k belongs to shard k mod n)")
	fl.StringVar(&startAt, "start-at", "", "start at this wall-clock time (RFC 3339), so shards start together")
	return cmd
}

// loadSchedule is apply's single seam to the plan: a .tplan is replayed as
// compiled; anything else is loaded and compiled now. It also returns what
// writes plan.tplan into the run directory and the sensitive variables'
// names (for redacting the command line).
func loadSchedule(e *env, path string, f *planFlags) (*compile.Schedule, func(io.Writer) error, map[string]bool, error) {
	if strings.HasSuffix(path, ".tplan") {
		return loadTPlan(path)
	}
	p, s, files, diags := compilePlan(e, path, f)
	if s == nil {
		writeDiagnostics(diagStream(e, f.json), files, diags, f.json)
		return nil, nil, nil, withCode(ExitInvalid, nil)
	}
	if !f.json {
		writeDiagnostics(e.stderr, files, diags, false) // warnings
	}
	return s, func(w io.Writer) error { return compile.WriteTPlan(w, s, p) }, sensitiveVars(p), nil
}

func loadTPlan(path string) (*compile.Schedule, func(io.Writer) error, map[string]bool, error) {
	fh, err := os.Open(path)
	if err != nil {
		return nil, nil, nil, withCode(ExitInvalid, err)
	}
	defer fh.Close()
	tp, err := compile.ReadTPlan(fh)
	if err != nil {
		return nil, nil, nil, withCode(ExitInvalid, fmt.Errorf("%s: %w", path, err))
	}
	if len(tp.Sensitive) > 0 {
		return nil, nil, nil, withCode(ExitInvalid, fmt.Errorf("%s leaves out the sensitive variables %s, so it cannot be replayed as is: apply the plan's sources with those variables set",
			path, strings.Join(tp.Sensitive, ", ")))
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
		if fl.Name != "var" && fl.Name != "var-file" {
			parts = append(parts, "--"+fl.Name+"="+fl.Value.String())
		}
	})
	for _, v := range vars {
		if v.File {
			parts = append(parts, "-var-file="+v.Value)
			continue
		}
		name, _, _ := strings.Cut(v.Value, "=")
		if sensitive[strings.TrimSpace(name)] {
			parts = append(parts, "-var="+name+"=(sensitive)")
		} else {
			parts = append(parts, "-var="+v.Value)
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

// applySummary is apply's result in the shape of the report JSON (its
// global part), plus where the run was kept.
type applySummary struct {
	Dir         string             `json:"dir"`
	Requests    int64              `json:"requests"`
	Sent        int64              `json:"sent"`
	OK          int64              `json:"ok"`
	Errors      int64              `json:"errors"`
	ErrorRate   float64            `json:"error_rate"`
	DurationS   float64            `json:"duration_s"`
	LatencyMs   map[string]float64 `json:"latency_ms"`
	Status      map[string]int64   `json:"status"`
	ErrorKinds  map[string]int64   `json:"error_kinds"`
	Interrupted bool               `json:"interrupted"`
	EarlyExit   bool               `json:"early_exit"`
	Thresholds  []string           `json:"threshold_failures"`
}

func applyJSON(o *exec.Outcome) applySummary {
	s := applySummary{Dir: o.Dir, Requests: o.Requests, Sent: o.Sent, OK: o.OK, Errors: o.Requests - o.OK,
		DurationS: o.End.Sub(o.Start).Seconds(), LatencyMs: map[string]float64{}, Status: map[string]int64{},
		ErrorKinds: o.ErrorKinds, Interrupted: o.Interrupted, EarlyExit: o.EarlyExit, Thresholds: o.ThresholdFailures}
	if o.Requests > 0 {
		s.ErrorRate = float64(s.Errors) / float64(o.Requests)
	}
	for k, v := range o.Latency {
		s.LatencyMs[k] = float64(v) / 1e6
	}
	for k, v := range o.Status {
		s.Status[fmt.Sprint(k)] = v
	}
	if s.Thresholds == nil {
		s.Thresholds = []string{}
	}
	return s
}

// writeApplySummary prints the short text summary of a run; the full
// reports are `tressi report`'s.
func writeApplySummary(w io.Writer, o *exec.Outcome) error {
	s := applyJSON(o)
	var b strings.Builder
	fmt.Fprintf(&b, "\nRun saved in %s\n", s.Dir)
	fmt.Fprintf(&b, "  requests %d  sent %d  ok %d  errors %d (%.2f%%)  in %.1fs\n",
		s.Requests, s.Sent, s.OK, s.Errors, 100*s.ErrorRate, s.DurationS)
	if len(o.Latency) > 0 {
		fmt.Fprintf(&b, "  latency (corrected)  p50 %v  p90 %v  p99 %v  p99.9 %v\n",
			round(o.Latency["p50"]), round(o.Latency["p90"]), round(o.Latency["p99"]), round(o.Latency["p999"]))
	}
	if len(o.ErrorKinds) > 0 {
		kinds := make([]string, 0, len(o.ErrorKinds))
		for k, n := range o.ErrorKinds {
			kinds = append(kinds, fmt.Sprintf("%s %d", k, n))
		}
		sort.Strings(kinds)
		fmt.Fprintf(&b, "  errors: %s\n", strings.Join(kinds, ", "))
	}
	for _, f := range o.ThresholdFailures {
		fmt.Fprintf(&b, "  threshold failed: %s\n", f)
	}
	switch {
	case o.Interrupted:
		b.WriteString("  interrupted: unstarted requests are recorded as not_sent\n")
	case o.EarlyExit:
		b.WriteString("  stopped early by a threshold: unstarted requests are recorded as not_sent\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func round(d time.Duration) time.Duration {
	if d >= time.Millisecond {
		return d.Round(10 * time.Microsecond)
	}
	return d.Round(time.Microsecond)
}
