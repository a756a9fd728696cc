package cli

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/tressi/tressi/archive"
	"github.com/tressi/tressi/exec"
)

// unpackedArchives unpacks each archive among paths into a temporary
// directory and returns the paths with archives replaced by their run
// directories; cleanup removes what was unpacked. A file changed after
// archiving is reported as a warning: verify is the command that judges.
func unpackedArchives(e *env, paths []string) (out []string, cleanup func(), err error) {
	var dirs []string
	cleanup = func() {
		for _, d := range dirs {
			os.RemoveAll(d)
		}
	}
	out = make([]string, len(paths))
	for i, p := range paths {
		out[i] = p
		if !archive.IsArchive(p) {
			continue
		}
		o, err := openArchive(p)
		if o != nil {
			dirs = append(dirs, o.Dir)
		}
		if err != nil {
			cleanup()
			return nil, func() {}, err
		}
		for _, prob := range o.Problems {
			fmt.Fprintf(e.stderr, "Warning: %s: %s (tressi verify %s says more)\n", p, prob, p)
		}
		out[i] = o.RunDir
	}
	return out, cleanup, nil
}

// openArchive unpacks an archive into a new temporary directory.
func openArchive(path string) (*archive.Opened, error) {
	dir, err := os.MkdirTemp("", "tressi-archive-")
	if err != nil {
		return nil, err
	}
	o, err := archive.Open(path, dir)
	if err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	return o, nil
}

// replayPath turns an archive given to apply into its plan.tplan, unpacked
// for the length of the run; other paths pass through.
func replayPath(e *env, path string) (string, func(), error) {
	if !archive.IsArchive(path) {
		return path, func() {}, nil
	}
	o, err := openArchive(path)
	if err != nil {
		return "", nil, withCode(ExitInvalid, err)
	}
	for _, prob := range o.Problems {
		fmt.Fprintf(e.stderr, "Warning: %s: %s (tressi verify %s says more)\n", path, prob, path)
	}
	fmt.Fprintf(e.stderr, "Replaying schedule %s of %s (run %s)\n", o.Info.Run.ScheduleHash, path, o.Info.Run.RunID)
	return filepath.Join(o.RunDir, exec.PlanFile), func() { os.RemoveAll(o.Dir) }, nil
}
