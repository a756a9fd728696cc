package cli

import (
	"bufio"
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/tressi/tressi/report"
)

func init() { register(newDiffCmd) }

func newDiffCmd(e *env) *cobra.Command {
	var (
		format string
		out    string
		failOn []string
		factor float64
	)
	cmd := &cobra.Command{
		Use:   "diff A B",
		Short: "Compare two runs or archives slot by slot; --fail-on gates CI",
		Long: "diff compares run B with run A (run directories, results files or archives). For one schedule\n" +
			"(same hash) it matches slots: those ok in A and failed in B and the reverse, by endpoint or step\n" +
			"and kind of failure, with the first slot numbers and due times, and each endpoint's latency shift\n" +
			"with the share of slots slower by more than --slower-factor. For different schedules it compares\n" +
			"the summaries only, and says so. --fail-on exits 2 when a condition holds (B against A).\n\n" +
			"A side may be the shards of a scaled-out run: their run directories separated by commas\n" +
			"(shard-0,shard-1), or a directory holding them; their slots are read as one run's.",
		Example: "  tressi diff baseline.tressi.tar.zst tressi-runs/api-20260102T120000Z --format md\n" +
			"  tressi diff main-run pr-run --fail-on 'p99>+10%' --fail-on 'error_rate>+0.5pp' --fail-on 'throughput<-5%'\n" +
			"  tressi diff base/shard-0,base/shard-1 pr/shard-0,pr/shard-1",
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			f, err := report.ParseFormat(format)
			if err != nil || (f != report.Text && f != report.Markdown && f != report.JSON) {
				return withCode(ExitInvalid, fmt.Errorf("--format %q: diff writes text, md or json", format))
			}
			opts := report.DiffOptions{SlowerFactor: factor}
			if factor <= 1 {
				return withCode(ExitInvalid, fmt.Errorf("--slower-factor %g: want a factor above 1, e.g. 2", factor))
			}
			for _, s := range failOn {
				g, err := report.ParseGate(s)
				if err != nil {
					return withCode(ExitInvalid, err)
				}
				opts.Gates = append(opts.Gates, g)
			}
			a, b := sideParts(args[0]), sideParts(args[1])
			paths, cleanup, err := unpackedArchives(e, append(append([]string{}, a...), b...))
			if err != nil {
				return withCode(ExitInvalid, err)
			}
			defer cleanup()
			preferHugeHeap(128 << 20) // two runs' buffers
			d, err := report.BuildDiffShards(paths[:len(a)], paths[len(a):], opts)
			if err != nil {
				return withCode(ExitInvalid, err)
			}
			d.A.Path, d.B.Path = args[0], args[1]
			for _, w := range d.Warnings {
				fmt.Fprintf(e.stderr, "Warning: %s\n", w)
			}
			w := e.stdout
			var file *os.File
			if out != "" {
				if file, err = os.Create(out); err != nil {
					return withCode(ExitInvalid, fmt.Errorf("cannot write the diff: %w", err))
				}
				defer file.Close()
				w = file
			}
			bw := bufio.NewWriter(w)
			if err := d.Render(bw, f); err != nil {
				return withCode(ExitInternal, err)
			}
			if err := bw.Flush(); err != nil {
				return withCode(ExitInternal, err)
			}
			if d.GatesFailed() {
				return withCode(ExitThresholds, nil)
			}
			return nil
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&format, "format", "text", "output format: text, md, json")
	fl.StringVarP(&out, "out", "o", "", "write to this file instead of stdout")
	fl.StringArrayVar(&failOn, "fail-on", nil, "exit 2 when this holds for B against A, e.g. 'p99>+10%', 'error_rate>+0.5pp', 'throughput<-5%' (repeatable)")
	fl.Float64Var(&factor, "slower-factor", 2, "a slot counts as slower when its latency in B exceeds this factor times A's")
	return cmd
}

// sideParts splits one side of a diff into its shards' paths at commas,
// unless the whole argument names a file (a path may hold a comma).
func sideParts(arg string) []string {
	if _, err := os.Stat(arg); err == nil || !strings.Contains(arg, ",") {
		return []string{arg}
	}
	var parts []string
	for _, p := range strings.Split(arg, ",") {
		if p != "" {
			parts = append(parts, p)
		}
	}
	return parts
}
