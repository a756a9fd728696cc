package search

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/tressi/tressi/compile"
	"github.com/tressi/tressi/exec"
	"github.com/tressi/tressi/plan"
	"github.com/tressi/tressi/results"
)

// Options say how a search runs.
type Options struct {
	// Exec is every probe's exec.Options; OutDir is the search's run
	// directory, and each probe runs in OutDir/ProbeDir(i).
	Exec exec.Options
	// TPlan, when set, gives the writer of each probe's plan.tplan.
	TPlan func(s *compile.Schedule) func(io.Writer) error
	// Log gets one line per probe as it is judged; nil: none.
	Log io.Writer
	// Live, when set, follows the probes as they run (a live view's probe
	// table); Exec.Observe, when set, sees every probe's rows beside the
	// judge.
	Live Live
}

// Live follows a search's probes, from the search's goroutine.
type Live interface {
	// Probing says probe p (Verdict VerdictRunning) is about to run;
	// figures reads its judged figures so far, from any goroutine.
	Probing(p Probe, figures func() Probe)
	// Judged says how the probe Probing announced ended.
	Judged(p Probe)
}

// Run runs the search of p: probe after probe, each compiled with
// compile.CompileProbe and replayed by exec.Run, until Next says it is
// over. It writes OutDir/search.json after every probe. The error is for a
// search that could not be carried out; failing probes are results.
func Run(ctx context.Context, p *plan.Plan, opt Options) (*Record, error) {
	if p.Load == nil || p.Load.Search == nil {
		return nil, errors.New("the plan's load has no search block")
	}
	dir := opt.Exec.OutDir
	if err := makeDir(dir); err != nil {
		return nil, err
	}
	b := BoundsOf(p.Load)
	rec := newRecord(p)
	rec.Start = time.Now()
	for {
		value, ok := Next(b, rec.steps())
		if !ok {
			break
		}
		if len(rec.Probes) > 0 && !pause(ctx, opt.Exec.Interrupt, p.Load.Search.Cooldown) {
			rec.Ended = "interrupted"
			break
		}
		pr, err := runProbe(ctx, p, opt, len(rec.Probes)+1, value)
		if err != nil {
			rec.settle(b)
			rec.End = time.Now()
			rec.Ended = "error: " + err.Error()
			_ = rec.write(dir)
			return rec, err
		}
		rec.Probes = append(rec.Probes, *pr)
		rec.settle(b)
		if opt.Log != nil {
			writeProbeLine(opt.Log, rec.Unit, pr)
		}
		if err := rec.write(dir); err != nil {
			return rec, fmt.Errorf("writing %s: %w", File, err)
		}
		if pr.Verdict == VerdictInterrupted {
			rec.Ended = "interrupted"
			break
		}
	}
	rec.End = time.Now()
	if rec.Ended == "" {
		rec.Ended = endedWhy(b, rec)
	}
	return rec, rec.write(dir)
}

// endedWhy says why Next ended the search.
func endedWhy(b Bounds, rec *Record) string {
	lo, hi := Interval(rec.steps())
	switch {
	case b.Converged(lo, hi):
		return "converged"
	case hi == 0 && lo >= b.To:
		return "to passed: the service sustains the highest value searched; raise to"
	case len(rec.steps()) >= b.MaxProbes:
		return "max_probes reached before the precision"
	case lo == 0:
		return "no probe passed"
	}
	return "values cannot be split further"
}

// runProbe runs and judges one probe.
func runProbe(ctx context.Context, p *plan.Plan, opt Options, index int, value float64) (*Probe, error) {
	sr := p.Load.Search
	s, diags := compile.CompileProbe(p, value)
	if diags.HasErrors() {
		return nil, fmt.Errorf("compiling the probe at %g: %s", value, diags.Error())
	}
	th := s.Thresholds
	// The search judges the probe itself (warmup excluded); exec must not
	// stop it on a warmup error nor judge the warmup in. The probe's
	// plan.tplan keeps the thresholds, for reports.
	run := *s
	run.Thresholds = results.Thresholds{}
	closed := s.Model == compile.Closed
	j := NewJudge(th, closed, dues(s), sr.Warmup, sr.Warmup+sr.Hold)

	eo := opt.Exec
	eo.OutDir = filepath.Join(opt.Exec.OutDir, ProbeDir(index))
	meta, _ := json.Marshal(ProbeMeta{Index: index, Value: value, Model: s.Model.String(),
		WarmupNs: int64(sr.Warmup), HoldNs: int64(sr.Hold)})
	eo.Probe = string(meta)
	eo.Observe, eo.Watch = j.Observe, j.Watch
	if also := opt.Exec.Observe; also != nil {
		eo.Observe = func(row *results.Row, ok bool) { j.Observe(row, ok); also(row, ok) }
	}
	if opt.Live != nil {
		running := Probe{Index: index, Offered: value, Dir: ProbeDir(index), ScheduleHash: s.Hash, Verdict: VerdictRunning}
		opt.Live.Probing(running, func() Probe { return j.Figures(running) })
	}
	eo.TPlan = nil
	if opt.TPlan != nil {
		eo.TPlan = opt.TPlan(s)
	}
	out, err := exec.Run(ctx, &run, eo)
	if err != nil {
		return nil, fmt.Errorf("probe %d at %g: %w", index, value, err)
	}
	// What stopped the probe early is the detail of the run's
	// "early_exit" failure (see exec's verdict).
	stop := ""
	for _, f := range out.ThresholdFailures {
		if rest, ok := strings.CutPrefix(f, "early_exit: "); ok && out.EarlyExit {
			stop = rest
		}
	}
	v, t := j.Final(stop)
	pr := &Probe{Index: index, Offered: value, Dir: ProbeDir(index), ScheduleHash: s.Hash, EarlyStop: stop != "",
		Reasons: v.Reasons, Verdict: VerdictFail}
	pr.FillFigures(t)
	pr.HeldS = round3(max(out.End.Sub(out.Start)-sr.Warmup, 0).Seconds())
	switch {
	case out.Interrupted:
		pr.Verdict, pr.Reasons = VerdictInterrupted, []string{"interrupted before the hold ended"}
	case v.Passed:
		pr.Verdict = VerdictPass
	}
	if opt.Live != nil {
		opt.Live.Judged(*pr)
	}
	return pr, nil
}

// dues are an open schedule's slot instants when each slot is one request
// (no scenarios), for the judge's certain rules; nil otherwise.
func dues(s *compile.Schedule) []int64 {
	if s.Model != compile.Open || s.Count <= 0 || s.Count > maxDues {
		return nil
	}
	for _, e := range s.Entries {
		if e.Scenario {
			return nil
		}
	}
	out := make([]int64, 0, s.Count)
	src := s.Slots()
	buf := make([]compile.Slot, 4096)
	for {
		n := src.Next(buf)
		if n == 0 {
			break
		}
		for _, sl := range buf[:n] {
			out = append(out, sl.Due())
		}
	}
	if compile.StreamErr(src) != nil || int64(len(out)) != s.Count {
		return nil
	}
	return out
}

// pause waits d between probes; false when interrupted.
func pause(ctx context.Context, interrupt <-chan struct{}, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-interrupt:
		return false
	case <-ctx.Done():
		return false
	}
}

// makeDir creates the search's run directory, which must be new or empty.
func makeDir(dir string) error {
	if dir == "" {
		return errors.New("no run directory given")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("creating run directory: %w", err)
	}
	names, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	if len(names) > 0 {
		return fmt.Errorf("run directory %s is not empty; choose another with --out", dir)
	}
	return nil
}

func writeProbeLine(w io.Writer, unit string, p *Probe) {
	why := ""
	if len(p.Reasons) > 0 {
		why = "  " + p.Reasons[0]
	}
	fmt.Fprintf(w, "probe %d: %g %s  achieved %.1f req/s  p50 %s  p99 %s  errors %.2f%%  %s%s\n",
		p.Index, p.Offered, unit, p.Achieved, fmtMs(p.P50Ms), fmtMs(p.P99Ms), 100*p.ErrorRate, p.Verdict, why)
}

func fmtMs(v float64) string {
	if v < 0 {
		return "-"
	}
	return fmt.Sprintf("%.3gms", v)
}
