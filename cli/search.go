package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/hashicorp/hcl/v2"

	"github.com/tressi/tressi/compile"
	"github.com/tressi/tressi/exec"
	"github.com/tressi/tressi/internal/live"
	"github.com/tressi/tressi/plan"
	"github.com/tressi/tressi/report"
	"github.com/tressi/tressi/results"
	"github.com/tressi/tressi/search"
)

// searchPlanAt loads the plan at path and returns it when its load has a
// search block; nil for any other plan (or a .tplan, or a plan that does
// not load: the normal path reports its diagnostics).
func searchPlanAt(e *env, path string, f *planFlags) (*plan.Plan, map[string]*hcl.File, hcl.Diagnostics) {
	if strings.HasSuffix(path, ".tplan") {
		return nil, nil, nil
	}
	p, files, diags := loadPlan(e, path, f)
	if p == nil || p.Load == nil || p.Load.Search == nil {
		return nil, nil, nil
	}
	return p, files, diags
}

// searchPlanSummary is `tressi plan` on a search plan: the probe bounds,
// the growth ladder and the worst-case duration.
type searchPlanSummary struct {
	Name            string           `json:"name"`
	Model           string           `json:"model"`
	Unit            string           `json:"unit"`
	From            float64          `json:"from"`
	To              float64          `json:"to"`
	Growth          float64          `json:"growth"`
	Precision       float64          `json:"precision"`
	MaxProbes       int              `json:"max_probes"`
	WarmupS         float64          `json:"warmup_s"`
	HoldS           float64          `json:"hold_s"`
	CooldownS       float64          `json:"cooldown_s"`
	Ladder          []float64        `json:"ladder"`
	Criteria        []string         `json:"criteria"`
	WorstCaseS      float64          `json:"worst_case_s"`
	FirstProbe      compile.Summary  `json:"first_probe"`
	LastLadderProbe compile.Summary  `json:"last_ladder_probe"`
	Diagnostics     []jsonDiagnostic `json:"diagnostics"`
}

// worstCase is the longest a search can run: every probe holds to its end
// and a cool-down separates each pair (in-flight requests draining at a
// probe's end come on top, up to the targets' timeout).
func worstCase(sr *plan.Search) time.Duration {
	n := time.Duration(sr.MaxProbes)
	return n*(sr.Warmup+sr.Hold) + (n-1)*sr.Cooldown
}

// planSearch is `tressi plan` for a search plan. It compiles the first and
// the highest probe of the ladder, so a plan error shows now, not mid-search.
func planSearch(e *env, p *plan.Plan, files map[string]*hcl.File, diags hcl.Diagnostics, f *planFlags, out string) error {
	if out != "" {
		return withCode(ExitInvalid, fmt.Errorf("-out: a search plan has one schedule per probe, decided as it runs; apply the plan itself (each probe's schedule is saved in its run directory)"))
	}
	sr := p.Load.Search
	b := search.BoundsOf(p.Load)
	ladder := b.Ladder()
	first, d1 := compile.CompileProbe(p, ladder[0])
	last, d2 := compile.CompileProbe(p, ladder[len(ladder)-1])
	diags = append(append(diags, d1...), d2...)
	if first == nil || last == nil {
		writeDiagnostics(diagStream(e, f.json), files, diags, f.json)
		return withCode(ExitInvalid, nil)
	}
	sum := searchPlanSummary{Name: p.Name, Model: p.Load.Model, Unit: search.UnitOf(p.Load.Model), From: sr.From, To: sr.To,
		Growth: sr.Growth, Precision: sr.Precision, MaxProbes: sr.MaxProbes, WarmupS: sr.Warmup.Seconds(),
		HoldS: sr.Hold.Seconds(), CooldownS: sr.Cooldown.Seconds(), Ladder: ladder, Criteria: search.Criteria(compile.Thresholds(p.Thresholds)),
		WorstCaseS: worstCase(sr).Seconds(), FirstProbe: compile.Summarize(first), LastLadderProbe: compile.Summarize(last),
		Diagnostics: jsonDiagnostics(diags)}
	if sum.Model == "" {
		sum.Model = plan.ModelOpen
	}
	if f.json {
		return printJSON(e, sum)
	}
	writeDiagnostics(e.stderr, files, diags, false)
	w := e.stdout
	fmt.Fprintf(w, "Capacity search: %s (%s model)\n", sum.Name, sum.Model)
	fmt.Fprintf(w, "  values       from %g to %g %s\n", sum.From, sum.To, sum.Unit)
	fmt.Fprintf(w, "  growth       ×%g per probe until one fails: %s\n", sum.Growth, joinValues(ladder, sum.Unit))
	fmt.Fprintf(w, "  then         bisect until min_failing − max_rate ≤ %g%% of max_rate\n", 100*sum.Precision)
	fmt.Fprintf(w, "  probes       at most %d, each %v warmup (its first half a ramp from 0; sent, not judged) + %v hold, %v cool-down between\n",
		sum.MaxProbes, sr.Warmup, sr.Hold, sr.Cooldown)
	fmt.Fprintf(w, "  pass when    %s\n", strings.Join(sum.Criteria, ", "))
	fmt.Fprintf(w, "  worst case   %v (%d × (%v + %v) + %d × %v), plus each probe's in-flight requests draining\n",
		worstCase(sr), sr.MaxProbes, sr.Warmup, sr.Hold, sr.MaxProbes-1, sr.Cooldown)
	if sum.Model == plan.ModelClosed {
		fmt.Fprintf(w, "  requests     as many as the users get answered (closed model, think %v)\n", p.Load.Think)
	} else {
		fmt.Fprintf(w, "  requests     %d at %g %s, %d at %g %s (per probe, warmup included)\n",
			sum.FirstProbe.Requests, ladder[0], sum.Unit, sum.LastLadderProbe.Requests, ladder[len(ladder)-1], sum.Unit)
	}
	fmt.Fprintf(w, "\nRun it with: tressi apply %s\n", p.Path)
	return nil
}

func joinValues(vs []float64, unit string) string {
	parts := make([]string, len(vs))
	for i, v := range vs {
		parts[i] = fmt.Sprintf("%g", v)
	}
	return strings.Join(parts, ", ") + " " + unit
}

// applySearch is `tressi apply` on a search plan: it runs the probes into
// one run directory and prints the search report. Exit 0 when some value
// passed, 2 when none did, 130 when interrupted.
func applySearch(e *env, p *plan.Plan, files map[string]*hcl.File, diags hcl.Diagnostics, f *planFlags, opt exec.Options, out runOutput) error {
	if !f.json && !out.quiet {
		writeDiagnostics(e.stderr, files, diags, false) // warnings
	}
	if opt.Shard.Count > 1 || !opt.StartAt.IsZero() {
		return withCode(ExitInvalid, fmt.Errorf("--shard and --start-at: a search decides each probe from the last one's verdict, so it runs on one machine"))
	}
	if opt.OutDir == "" {
		opt.OutDir = freeRunDir(exec.DefaultRunDir(p.Name, time.Now()))
	}
	var log io.Writer
	if !out.quiet && !out.json {
		opt.Progress, opt.Terminal = e.stderr, isTerminal(e.stderr)
		log = e.stderr
		fmt.Fprintf(e.stderr, "Searching %s: from %g to %g %s, at most %d probes, worst case %v\n",
			p.Name, p.Load.Search.From, p.Load.Search.To, search.UnitOf(p.Load.Model), p.Load.Search.MaxProbes, worstCase(p.Load.Search))
	}
	interrupt, release := catchSignals(e)
	defer release()
	opt.Interrupt = interrupt
	tplan := func(s *compile.Schedule) func(io.Writer) error {
		return func(w io.Writer) error { return compile.WriteTPlan(w, s, p) }
	}
	so := search.Options{Exec: opt, TPlan: tplan, Log: log}
	defer prepareProcess(&so.Exec, p.Load.Model == plan.ModelOpen)()
	lv, err := startSearchLive(e, p, &so, out.live)
	if err != nil {
		return withCode(ExitInvalid, err)
	}
	defer lv.close(interrupt) // after the report is out
	rec, err := search.Run(context.Background(), p, so)
	lv.finish()
	if err != nil {
		if rec == nil {
			return withCode(ExitInvalid, err)
		}
		return withCode(ExitInternal, err)
	}
	th := compile.Thresholds(p.Thresholds)
	rep, err := report.BuildSearch(opt.OutDir, &th)
	if err != nil {
		return withCode(ExitInternal, err)
	}
	switch {
	case out.json:
		err = rep.Render(e.stdout, report.JSON)
	case !out.quiet:
		if err = rep.Render(e.stdout, report.Text); err == nil {
			_, err = fmt.Fprintf(e.stdout, "\nSearch saved in %s (tressi report %s --format html -o report.html)\n", opt.OutDir, opt.OutDir)
		}
	}
	if err != nil {
		return withCode(ExitInternal, err)
	}
	switch {
	case rec.Ended == "interrupted":
		return withCode(ExitInterrupted, nil)
	case rec.MaxRate == nil:
		return withCode(ExitThresholds, nil)
	}
	return nil
}

// startSearchLive serves the live views l asks for of the search of p: one
// view of its probes, one after another, with the probe table; nil when
// nothing was asked for.
func startSearchLive(e *env, p *plan.Plan, so *search.Options, l *liveFlags) (*liveViews, error) {
	if l == nil || !l.any() {
		return nil, nil
	}
	// Every probe compiles the same endpoints and targets: the first
	// one's name them.
	first, diags := compile.CompileProbe(p, search.BoundsOf(p.Load).Ladder()[0])
	if first == nil {
		return nil, fmt.Errorf("compiling the first probe: %s", diags.Error())
	}
	sr := p.Load.Search
	run := live.RunInfo{Plan: p.Name, Shard: so.Exec.Shard.String(), PlannedNs: int64(worstCase(sr))}
	feed := live.NewSearchFeed(run, search.UnitOf(p.Load.Model), search.Criteria(compile.Thresholds(p.Thresholds)))
	v, err := serveLive(e, feed, first, &so.Exec, l)
	if err == nil {
		so.Live = feed
	}
	return v, err
}

// reportSearch is `tressi report` on a search's run directory.
func reportSearch(e *env, dir string, format report.Format, w io.Writer) error {
	rep, err := report.BuildSearch(dir, searchThresholds(dir))
	if err != nil {
		return withCode(ExitInvalid, err)
	}
	for _, msg := range rep.Warnings {
		fmt.Fprintf(e.stderr, "Warning: %s\n", msg)
	}
	if err := rep.Render(w, format); err != nil {
		return withCode(ExitInvalid, err)
	}
	return nil
}

// searchThresholds are the plan's thresholds, from the first probe's
// plan.tplan (every probe stores the same).
func searchThresholds(dir string) *results.Thresholds {
	return runThresholds(dir + "/" + search.ProbeDir(1))
}

// runSearchReport writes a search's report to out (a file) or stdout.
func runSearchReport(e *env, dir string, format report.Format, out string) error {
	if out == "" {
		return reportSearch(e, dir, format, e.stdout)
	}
	fh, err := os.Create(out)
	if err != nil {
		return withCode(ExitInvalid, fmt.Errorf("cannot write the report: %w", err))
	}
	err = reportSearch(e, dir, format, fh)
	if cerr := fh.Close(); err == nil && cerr != nil {
		err = withCode(ExitInternal, cerr)
	}
	return err
}
