package cli

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/tressi/tressi/archive"
	"github.com/tressi/tressi/version"
)

func init() { register(newArchiveCmd) }

func newArchiveCmd(e *env) *cobra.Command {
	var out string
	cmd := &cobra.Command{
		Use:   "archive RUN_DIR [-o FILE]",
		Short: "Pack a run, its plan's files and variables into one reproducible file",
		Long: "archive writes one tar + zstd file holding the run (results, samples, meta.json, plan.tplan),\n" +
			"every file its plan read, the variable values (sensitive ones left out and named), the tressi\n" +
			"version and revision, the machine facts and a SHA-256 manifest. Archiving a run twice gives\n" +
			"byte-identical files. `tressi verify`, `report`, `apply` and `diff` take the archive.",
		Example: "  tressi archive tressi-runs/quickstart-20260101T120000Z -o baseline.tressi.tar.zst\n" +
			"  tressi archive tressi-runs/quickstart-20260101T120000Z   # writes quickstart-20260101T120000Z.tressi.tar.zst",
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			dir := args[0]
			if out == "" {
				out = filepath.Base(filepath.Clean(dir)) + ".tressi.tar.zst"
			}
			if err := writeArchive(dir, out); err != nil {
				return withCode(ExitInvalid, err)
			}
			fmt.Fprintf(e.stdout, "Archived %s to %s (check it with: tressi verify %s)\n", dir, out, out)
			return nil
		},
	}
	cmd.Flags().StringVarP(&out, "out", "o", "", "archive file to write (default <run-dir-name>.tressi.tar.zst)")
	return cmd
}

// writeArchive writes the archive beside its final name and renames it, so
// a failed run never leaves half an archive under the name.
func writeArchive(dir, out string) error {
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return fmt.Errorf("%s is not a run directory: pass the directory tressi apply wrote (tressi-runs/…)", dir)
	}
	tmp := out + ".tmp"
	f, err := os.Create(tmp)
	if err != nil {
		return fmt.Errorf("cannot write the archive: %w", err)
	}
	bw := bufio.NewWriterSize(f, 1<<20)
	err = archive.Create(bw, dir, version.Get())
	if err == nil {
		err = bw.Flush()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, out)
	}
	if err != nil {
		os.Remove(tmp)
	}
	return err
}
