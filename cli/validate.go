package cli

import (
	"fmt"

	"github.com/spf13/cobra"
)

func init() { register(newValidate) }

func newValidate(e *env) *cobra.Command {
	var f planFlags
	cmd := &cobra.Command{
		Use:   "validate [PATH]",
		Short: "Check a plan and print its diagnostics",
		Long: "Validate loads a plan (a file, or a directory of *.hcl and *.hcl.json files; default tressi.hcl)\n" +
			"and prints every mistake with its file, line and column, plus warnings for plans that cannot\n" +
			"hold their own rate. Exit status 0 when valid, 1 when not.",
		Example: "  tressi validate\n" +
			"  tressi validate examples/login.hcl --var rate=20\n" +
			"  tressi validate plans/ --var-file prod.tfvars --json",
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			p, files, diags := loadPlan(e, planPath(args), &f)
			if f.json {
				if err := writeDiagnostics(e.stdout, files, diags, true); err != nil {
					return withCode(ExitInternal, err)
				}
			} else {
				if err := writeDiagnostics(e.stderr, files, diags, false); err != nil {
					return withCode(ExitInternal, err)
				}
				if p != nil {
					fmt.Fprintln(e.stdout, "The plan is valid.")
				}
			}
			if p == nil {
				return withCode(ExitInvalid, nil)
			}
			return nil
		},
	}
	f.bind(cmd)
	return cmd
}
