package cli

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/tressi/tressi/plan"
	"github.com/tressi/tressi/recording"
)

func init() { register(newImport) }

// importFlags are the flags both import commands take.
type importFlags struct {
	out      string
	force    bool
	rate     float64
	duration time.Duration
	hosts    []string
}

func newImport(e *env) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "import",
		Short: "Write a plan from a recording: a HAR file or a curl command",
		Long: "Import writes a plan from recorded traffic: `import har` from a HAR file (a scenario per page,\n" +
			"with the recording's think times), `import curl` from a curl command line (one endpoint).\n" +
			"Hosts become variables; values that look secret (Authorization, cookies, tokens in headers,\n" +
			"queries and bodies) become sensitive variables left empty, so no secret is written in clear:\n" +
			"pass them with --var NAME=... or TRESSI_VAR_NAME. The plan is validated before it is written.",
		Example: "  tressi import har session.har -o session.hcl\n" +
			"  tressi import curl 'curl https://api.example/items -H \"Accept: application/json\"' -o items.hcl",
	}
	cmd.AddCommand(newImportHAR(e), newImportCurl(e))
	return cmd
}

func addImportFlags(cmd *cobra.Command, f *importFlags) {
	cmd.Flags().StringVarP(&f.out, "out", "o", "", "write the plan to this file instead of stdout (never overwritten without --force)")
	cmd.Flags().BoolVar(&f.force, "force", false, "overwrite the --out file if it exists")
	cmd.Flags().Float64Var(&f.rate, "rate", 1, "sessions (or requests, for curl) started per second in the load block")
	cmd.Flags().DurationVar(&f.duration, "duration", 10*time.Second, "how long the load block runs")
	cmd.Flags().StringArrayVar(&f.hosts, "host", nil, "keep only requests to hosts matching this pattern (host or host:port, * wildcards; repeatable): leave a page's CDN and analytics out")
}

func newImportHAR(e *env) *cobra.Command {
	var f importFlags
	cmd := &cobra.Command{
		Use:   "har FILE [-o plan.hcl]",
		Short: "Write a plan from a HAR file: a scenario per page",
		Long: "Reads a HAR file (Chromium's and Firefox's network panels export them: Save all as HAR) and\n" +
			"writes a plan with a scenario per page: its requests as steps in the order they started, each\n" +
			"followed by the pause the recording shows before the next one. Requests served from the\n" +
			"browser's cache, and those not over http or https, sent nothing and are left out.",
		Example: "  tressi import har checkout.har -o checkout.hcl\n" +
			"  tressi import har checkout.har --host shop.example --host '*.api.shop.example' -o checkout.hcl\n" +
			"  tressi import har checkout.har --rate 20 --duration 1m -o checkout.hcl",
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			file, err := os.Open(args[0])
			if err != nil {
				return withCode(ExitInvalid, fmt.Errorf("cannot read the HAR file: %w", err))
			}
			defer file.Close()
			rec, err := recording.ParseHAR(file, filepath.Base(args[0]))
			if err != nil {
				return withCode(ExitInvalid, err)
			}
			return writeImported(e, rec, f)
		},
	}
	addImportFlags(cmd, &f)
	return cmd
}

func newImportCurl(e *env) *cobra.Command {
	var f importFlags
	cmd := &cobra.Command{
		Use:   "curl 'curl URL [OPTIONS]' [-o plan.hcl]",
		Short: "Write a plan from a curl command line: one endpoint",
		Long: "Reads one curl command line, given as one quoted argument (as a browser's Copy as cURL writes\n" +
			"it), and writes a plan with one endpoint sending that request. It understands -X, -H, -d,\n" +
			"--data-raw, --data-binary, --data-urlencode, --json, -F (multipart, files included), -u (basic\n" +
			"auth, the password a sensitive variable), -b, -A, -e, -G, -I, -k and --compressed; options that\n" +
			"only change curl's own output (-s, -v, -o, -w, ...) are ignored, and -L too: see docs/plan.md.\n" +
			"@file arguments are read relative to the working directory.",
		Example: "  tressi import curl \"curl -X POST https://api.example/items -H 'Content-Type: application/json' -d '{\\\"name\\\":\\\"x\\\"}'\" -o items.hcl",
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			rec, err := recording.ParseCurl(args[0], ".")
			if err != nil {
				return withCode(ExitInvalid, err)
			}
			return writeImported(e, rec, f)
		},
	}
	addImportFlags(cmd, &f)
	return cmd
}

// writeImported writes the plan, after checking that it loads: an import
// that wrote a plan tressi then refuses would be a bug.
func writeImported(e *env, rec *recording.Recording, f importFlags) error {
	if f.rate <= 0 || f.duration <= 0 {
		return withCode(ExitInvalid, errors.New("--rate and --duration must be above 0"))
	}
	if len(f.hosts) > 0 {
		if err := recording.KeepHosts(rec, f.hosts); err != nil {
			return withCode(ExitInvalid, err)
		}
	}
	dir := "."
	if f.out != "" {
		dir = filepath.Dir(f.out)
	}
	src, err := recording.Write(rec, recording.Options{Rate: f.rate, Duration: f.duration, PlanDir: dir})
	if err != nil {
		return withCode(ExitInvalid, err)
	}
	if err := checkImported(src, dir); err != nil {
		return withCode(ExitInternal, err)
	}
	if f.out == "" {
		_, err := e.stdout.Write(src)
		return err
	}
	flags := os.O_WRONLY | os.O_CREATE | os.O_EXCL
	if f.force {
		flags = os.O_WRONLY | os.O_CREATE | os.O_TRUNC
	}
	file, err := os.OpenFile(f.out, flags, 0o644)
	if errors.Is(err, fs.ErrExist) {
		return withCode(ExitInvalid, fmt.Errorf("%s already exists: choose another --out, or add --force to overwrite it", f.out))
	}
	if err != nil {
		return withCode(ExitInvalid, fmt.Errorf("cannot create %s: %w", f.out, err))
	}
	if _, err := file.Write(src); err != nil {
		file.Close()
		return withCode(ExitInvalid, fmt.Errorf("cannot write %s: %w", f.out, err))
	}
	if err := file.Close(); err != nil {
		return withCode(ExitInvalid, fmt.Errorf("cannot write %s: %w", f.out, err))
	}
	fmt.Fprintf(e.stderr, "Wrote %s, sending to %s (--host keeps only the hosts you name).\n"+
		"Check it with `tressi plan %s`, then run it with `tressi apply %s`.\n",
		f.out, strings.Join(recording.Hosts(rec), ", "), f.out, f.out)
	return nil
}

// checkImported loads the written plan as tressi validate would, from a
// scratch file in the plan's directory (so multipart files resolve).
func checkImported(src []byte, dir string) error {
	tmp, err := os.CreateTemp(dir, ".tressi-import-*.hcl")
	if err != nil {
		tmp, err = os.CreateTemp("", "tressi-import-*.hcl")
		if err != nil {
			return err
		}
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(src); err != nil {
		tmp.Close()
		return err
	}
	tmp.Close()
	if _, _, diags := plan.Load(plan.Options{Path: tmp.Name()}); diags.HasErrors() {
		var msgs []string
		for _, d := range diags {
			msgs = append(msgs, d.Error())
		}
		return fmt.Errorf("internal error: the imported plan does not validate (a bug in tressi; please report it with the recording's shape): %s", strings.Join(msgs, "; "))
	}
	return nil
}
