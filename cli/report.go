package cli

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/tressi/tressi/compile"
	"github.com/tressi/tressi/exec"
	"github.com/tressi/tressi/report"
	"github.com/tressi/tressi/results"
)

func init() { register(newReportCmd) }

// reportOptions are the flags of `tressi report`.
type reportOptions struct {
	format   string
	out      string
	baseline []string
}

func newReportCmd(e *env) *cobra.Command {
	var o reportOptions
	formats := make([]string, len(report.Formats))
	for i, f := range report.Formats {
		formats[i] = string(f)
	}
	cmd := &cobra.Command{
		Use:   "report RUN_DIR_OR_RESULTS_OR_ARCHIVE...",
		Short: "Summarise a run's results (several inputs: shards of one run)",
		Long: "report reads a run directory (results.arrow, plus samples.arrow and meta.json when present)\n" +
			"or a results file, and writes a summary. Several inputs are shards of one run: they must share\n" +
			"a schedule hash and hold disjoint slots, and are merged row by row. The plan's thresholds\n" +
			"(from the first input's plan.tplan) are judged over all of them: exit 2 when one fails.",
		Example: "  tressi report tressi-runs/quickstart-20260101T120000Z\n" +
			"  tressi report shard-0 shard-1 --format html -o report.html\n" +
			"  tressi report new-run --baseline old-run --format md",
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error { return runReport(e, args, o) },
	}
	cmd.Flags().StringVar(&o.format, "format", "text", "output format: "+strings.Join(formats, ", "))
	cmd.Flags().StringVarP(&o.out, "out", "o", "", "write to this file instead of stdout")
	// --output was report's spelling before every command said --out.
	cmd.Flags().StringVar(&o.out, "output", "", "")
	_ = cmd.Flags().MarkHidden("output")
	cmd.Flags().StringArrayVar(&o.baseline, "baseline", nil, "a run (repeat for its shards) to compare with")
	return cmd
}

func runReport(e *env, args []string, o reportOptions) error {
	format, err := report.ParseFormat(o.format)
	if err != nil {
		return withCode(ExitInvalid, err)
	}
	if format == report.XLSX && o.out == "" && isTerminal(e.stdout) {
		return withCode(ExitInvalid, errors.New("xlsx is binary: pass -o FILE.xlsx, or redirect stdout to a file"))
	}
	args, cleanup, err := unpackedArchives(e, args)
	if err != nil {
		return withCode(ExitInvalid, err)
	}
	defer cleanup()
	baseline, cleanupBase, err := unpackedArchives(e, o.baseline)
	if err != nil {
		return withCode(ExitInvalid, err)
	}
	defer cleanupBase()
	preferHugeHeap(64 << 20)
	if len(args) == 1 && len(baseline) == 0 && report.IsSearchRun(args[0]) {
		return runSearchReport(e, args[0], format, o.out)
	}
	for _, path := range append(append([]string{}, args...), baseline...) {
		if what := notResults(path); what != "" {
			return withCode(ExitInvalid, errors.New(what))
		}
	}
	rep, err := report.Build(args, report.Options{Baseline: baseline, Thresholds: runThresholds(args[0])})
	if err != nil {
		return withCode(ExitInvalid, err)
	}
	// Warnings go to stderr too, so a truncated or partial run is noticed
	// even when the report itself goes to a file or a pipe.
	for _, w := range rep.Warnings {
		fmt.Fprintf(e.stderr, "Warning: %s\n", w)
	}
	w := e.stdout
	var file *os.File
	if o.out != "" {
		if file, err = os.Create(o.out); err != nil {
			return withCode(ExitInvalid, fmt.Errorf("cannot write the report: %w", err))
		}
		w = file
	}
	bw := bufio.NewWriterSize(w, 1<<16)
	err = rep.Render(bw, format)
	if err == nil {
		err = bw.Flush()
	}
	if file != nil {
		if cerr := file.Close(); err == nil {
			err = cerr
		}
	}
	if err != nil {
		return withCode(ExitInternal, fmt.Errorf("writing the %s report: %w", format, err))
	}
	// The plan's thresholds judged over every input's rows: for shards, the
	// verdict on the whole load, which no shard can give alone.
	if !rep.ThresholdsPassed() {
		return withCode(ExitThresholds, nil)
	}
	return nil
}

// isTerminal reports whether w is a character device such as a terminal.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// runThresholds reads the plan's thresholds from a run directory's
// plan.tplan, so an offline report judges the run as apply did; nil when
// there is none.
func runThresholds(path string) *results.Thresholds {
	if !planMatchesResults(path) {
		return nil // the report warns; another schedule's thresholds do not apply
	}
	fh, err := os.Open(filepath.Join(path, exec.PlanFile))
	if err != nil {
		return nil
	}
	defer fh.Close()
	th, err := compile.ReadTPlanThresholds(fh)
	if err != nil {
		return nil
	}
	return &th
}
