package cli

import (
	_ "embed"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/tressi/tressi/plan"
)

// starterPlan is what `tressi init` writes: a valid, commented plan.
//
//go:embed templates/tressi.hcl
var starterPlan []byte

func init() { register(newInit) }

func newInit(e *env) *cobra.Command {
	return &cobra.Command{
		Use:   "init [DIR]",
		Short: "Write a commented starter plan, tressi.hcl",
		Long:  "Init writes a commented, valid starter plan to DIR/tressi.hcl (DIR defaults to the current\ndirectory, and is created if needed). It never overwrites an existing file.",
		Example: "  tressi init\n" +
			"  tressi init load-tests/checkout",
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			dir := "."
			if len(args) == 1 {
				dir = args[0]
			}
			path, err := writeStarterPlan(dir)
			if err != nil {
				return withCode(ExitInvalid, err)
			}
			fmt.Fprintf(e.stdout, "Wrote %s: a 5-second run at up to 20 requests per second.\n"+
				"Check it with `tressi validate %s`, start a server to try it on with `tressi target --addr 127.0.0.1:8080`,\n"+
				"then run it with `tressi apply %s`. Scale it up with `tressi apply %s --var rate=500 --var duration=1m`,\n"+
				"or edit its load block.\n",
				path, path, path, path)
			return nil
		},
	}
}

// writeStarterPlan creates dir if needed and writes the starter plan into it,
// refusing to replace a file that is already there.
func writeStarterPlan(dir string) (string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("cannot create %s: %w", dir, err)
	}
	path := filepath.Join(dir, plan.DefaultPath)
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if errors.Is(err, fs.ErrExist) {
		return "", fmt.Errorf("%s already exists; tressi init never overwrites a file: move it away or choose another directory", path)
	}
	if err != nil {
		return "", fmt.Errorf("cannot create %s: %w", path, err)
	}
	if _, err := f.Write(starterPlan); err != nil {
		f.Close()
		return "", fmt.Errorf("cannot write %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return "", fmt.Errorf("cannot write %s: %w", path, err)
	}
	return path, nil
}
