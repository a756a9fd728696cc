package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"os"

	"github.com/hashicorp/hcl/v2"
	"github.com/spf13/cobra"

	"github.com/tressi/tressi/compile"
	"github.com/tressi/tressi/exec"
	"github.com/tressi/tressi/plan"
)

func init() { register(newPlan) }

func newPlan(e *env) *cobra.Command {
	var (
		f   planFlags
		out string
	)
	cmd := &cobra.Command{
		Use:   "plan [PATH]",
		Short: "Validate and compile a plan into a schedule, and summarise it",
		Long: "Plan validates a plan, compiles it into the exact request schedule it will run, and prints\n" +
			"what a person should check at a glance: requests, duration, peak rate, each endpoint's count\n" +
			"and share, a rate timeline, warnings, and the schedule hash (same plan + variables + seed,\n" +
			"same hash). --out writes the .tplan file that `tressi apply` replays; given a .tplan, plan\n" +
			"summarises that compiled schedule.",
		Example: "  tressi plan examples/quickstart.hcl\n" +
			"  tressi plan --var rate=500 --var duration=1m -o run.tplan\n" +
			"  tressi plan run.tplan          # summarise a compiled schedule\n" +
			"  tressi plan --json | jq .schedule_hash",
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if sniffInput(planPath(args)) == inputTPlan && out == "" {
				return summariseTPlan(e, planPath(args), f.json)
			}
			if p, files, diags := searchPlanAt(e, planPath(args), &f); p != nil {
				return planSearch(e, p, files, diags, &f, out)
			}
			p, s, files, diags := compilePlan(e, planPath(args), &f)
			if s == nil {
				writeDiagnostics(diagStream(e, f.json), files, diags, f.json)
				return withCode(ExitInvalid, nil)
			}
			diags = append(diags, fileLimitDiagnostics(s)...)
			if out != "" {
				if err := writeTPlanFile(out, s, p); err != nil {
					return withCode(ExitInvalid, err)
				}
			}
			sum := compile.Summarize(s)
			if f.json {
				return printJSON(e, planJSON{Summary: sum, Diagnostics: jsonDiagnostics(diags), Out: out})
			}
			writeDiagnostics(e.stderr, files, diags, false)
			if err := sum.WriteText(e.stdout); err != nil {
				return withCode(ExitInternal, err)
			}
			if out != "" {
				fmt.Fprintf(e.stdout, "\nSaved the schedule to %s. Run it with: tressi apply %s\n", out, out)
			}
			return nil
		},
	}
	f.bind(cmd)
	cmd.Flags().StringVarP(&out, "out", "o", "", "write the compiled schedule (.tplan) to this file")
	return cmd
}

// fileLimitDiagnostics is apply's open-file warning at plan time, on the
// machine that plans: a plan whose connections cannot fit says so before
// it runs, with the numbers.
func fileLimitDiagnostics(s *compile.Schedule) hcl.Diagnostics {
	w := exec.FileLimitWarning(s)
	if w == "" {
		return nil
	}
	return hcl.Diagnostics{{Severity: hcl.DiagWarning, Summary: "Connections exceed the open-file limit", Detail: w}}
}

// planJSON is `tressi plan --json`: the summary plus any warnings.
type planJSON struct {
	compile.Summary
	Diagnostics []jsonDiagnostic `json:"diagnostics"`
	Out         string           `json:"out,omitempty"`
}

// compilePlan loads and compiles the plan at path. The schedule is nil when
// there were errors; diags holds the warnings of both passes either way.
func compilePlan(e *env, path string, f *planFlags) (*plan.Plan, *compile.Schedule, map[string]*hcl.File, hcl.Diagnostics) {
	p, files, diags := loadPlan(e, path, f)
	if p == nil {
		return nil, nil, files, diags
	}
	s, cdiags := compile.Compile(p)
	diags = append(diags, p.Secrets.Diagnostics(cdiags)...)
	if cdiags.HasErrors() {
		return p, nil, files, diags
	}
	return p, s, files, diags
}

// writeTPlanFile writes the schedule atomically: a half-written .tplan must
// never be mistaken for a whole one.
func writeTPlanFile(path string, s *compile.Schedule, p *plan.Plan) error {
	tmp := path + ".tmp"
	fh, err := os.Create(tmp)
	if err != nil {
		return fmt.Errorf("cannot write the schedule: %w", err)
	}
	err = compile.WriteTPlan(fh, s, p)
	if cerr := fh.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		os.Remove(tmp)
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return nil
}

func diagStream(e *env, asJSON bool) io.Writer {
	if asJSON {
		return e.stdout
	}
	return e.stderr
}

func jsonDiagnostics(diags hcl.Diagnostics) []jsonDiagnostic {
	out := make([]jsonDiagnostic, 0, len(diags))
	for _, d := range diags {
		out = append(out, toJSONDiagnostic(d))
	}
	return out
}

func printJSON(e *env, v any) error {
	enc := json.NewEncoder(e.stdout)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return withCode(ExitInternal, err)
	}
	return nil
}
