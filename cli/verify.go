package cli

import (
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/tressi/tressi/archive"
)

func init() { register(newVerifyCmd) }

func newVerifyCmd(e *env) *cobra.Command {
	var f planFlags
	cmd := &cobra.Command{
		Use:   "verify ARCHIVE|RUN_DIR",
		Short: "Check an archive or run: sums, schedule hash, every row",
		Long: "verify checks an archive's SHA-256 manifest, that its plan files and variables are the run's and\n" +
			"compile to the schedule the results were recorded from, and reads every row (each batch against\n" +
			"its checksum, every slot present, each slot holding the rows its schedule says it stands for).\n" +
			"For a run directory it checks the same minus the manifest.\n" +
			"Each line names the file it is about. Exit 0 verified, 1 not. Sensitive variables, which\n" +
			"archives leave out, are passed with --var as for apply.",
		Example: "  tressi verify baseline.tressi.tar.zst\n  tressi verify tressi-runs/login-20260101T120000Z --var password=…",
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts := archive.VerifyOptions{Vars: f.vars, Env: e.environ, Tressi: Version}
			preferHugeHeap(64 << 20)
			path := args[0]
			var v *archive.Verification
			switch st, err := os.Stat(path); {
			case err != nil:
				return withCode(ExitInvalid, fmt.Errorf("%s does not exist: pass an archive (tressi archive) or a run directory", path))
			case st.IsDir():
				v = archive.VerifyRun(path, opts)
			case archive.IsArchive(path):
				o, err := openArchive(path)
				if err != nil {
					return withCode(ExitInvalid, err)
				}
				defer os.RemoveAll(o.Dir)
				v = archive.VerifyArchive(o, opts)
			default:
				return withCode(ExitInvalid, fmt.Errorf("%s is neither an archive written by tressi archive nor a run directory", path))
			}
			if f.json {
				if err := printJSON(e, v); err != nil {
					return err
				}
			} else {
				for _, c := range v.Checks {
					fmt.Fprintf(e.stdout, "%-7s %s: %s\n", c.Status, c.Subject, c.Detail)
				}
				if len(v.Diagnostics) > 0 {
					writeDiagnostics(e.stderr, v.Files, v.Diagnostics, false)
				}
			}
			if !v.OK() {
				if !f.json {
					fmt.Fprintf(e.stdout, "\n%s is NOT verified.\n", path)
				}
				return withCode(ExitInvalid, nil)
			}
			if !f.json {
				fmt.Fprintf(e.stdout, "\n%s is verified.\n", path)
			}
			return nil
		},
	}
	f.bind(cmd)
	return cmd
}
