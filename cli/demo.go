package cli

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/tressi/tressi/compile"
	"github.com/tressi/tressi/examples"
	"github.com/tressi/tressi/exec"
	"github.com/tressi/tressi/plan"
	"github.com/tressi/tressi/testserver"
)

func init() { register(newDemo) }

func newDemo(e *env) *cobra.Command {
	var (
		out   string
		quiet bool
		json  bool
	)
	cmd := &cobra.Command{
		Use:   "demo",
		Short: "Run the quickstart plan against the built-in target on loopback",
		Long: "Demo starts the built-in test server on a free 127.0.0.1 port, runs the embedded\n" +
			"examples/quickstart.hcl against it (about 800 requests over 5 s), and prints the report.\n" +
			"The run directory it writes is a normal one: try `tressi report DIR --format html -o r.html`.",
		Example: "  tressi demo\n" +
			"  tressi demo -o /tmp/demo-run -q && tressi report /tmp/demo-run --format md\n" +
			"  tressi demo --json",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			srv, addr, err := testserver.StartLoopback(nil)
			if err != nil {
				return withCode(ExitInternal, fmt.Errorf("starting the built-in target: %w", err))
			}
			defer srv.Close()
			if !quiet && !json {
				fmt.Fprintf(e.stderr, "Built-in target listening on http://%s; running %s against it.\n", addr, examples.Quickstart)
			}
			p, files, diags := plan.Load(plan.Options{
				Path: examples.Quickstart,
				FS:   examples.FS,
				Vars: []plan.VarArg{{Value: "base_url=http://" + addr}},
			})
			if p == nil {
				writeDiagnostics(e.stderr, files, diags, false)
				return withCode(ExitInternal, fmt.Errorf("the embedded quickstart plan is invalid"))
			}
			s, cdiags := compile.Compile(p)
			if cdiags.HasErrors() {
				writeDiagnostics(e.stderr, files, cdiags, false)
				return withCode(ExitInternal, fmt.Errorf("the embedded quickstart plan does not compile"))
			}
			opt := exec.Options{
				Version:     Version,
				OutDir:      out,
				CommandLine: "tressi demo",
				TPlan:       func(w io.Writer) error { return compile.WriteTPlan(w, s, p) },
			}
			return runAndReport(e, s, opt, runOutput{json: json, quiet: quiet})
		},
	}
	cmd.Flags().StringVarP(&out, "out", "o", "", "run directory to create (default tressi-runs/quickstart-<UTC time>)")
	cmd.Flags().BoolVarP(&quiet, "quiet", "q", false, "print neither progress nor the report")
	cmd.Flags().BoolVar(&json, "json", false, "print the report as JSON")
	return cmd
}
