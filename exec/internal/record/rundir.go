package record

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// Names of the files in a run directory.
const (
	ResultsFile = "results.arrow"
	SamplesFile = "samples.arrow"
	PlanFile    = "plan.tplan"
	MetaFile    = "meta.json"
)

// DefaultRunDir is where a run of planName started at t is kept:
// tressi-runs/<plan-name>-<UTC yyyymmddThhmmssZ>, with a name that is valid
// on every OS (no ':' or other characters Windows refuses).
func DefaultRunDir(planName string, t time.Time) string {
	return filepath.Join("tressi-runs", safeName(planName)+"-"+t.UTC().Format("20060102T150405Z"))
}

// safeName keeps letters, digits, '-', '_' and '.', replaces anything else
// with '_', and never returns an empty or dot-only name.
func safeName(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '-', r == '_', r == '.':
			b.WriteRune(r)
		default:
			b.WriteByte('_')
		}
	}
	out := strings.Trim(b.String(), ".")
	if out == "" {
		return "run"
	}
	return out
}

// MakeRunDir creates dir; an existing non-empty directory is refused so a
// run never mixes its files with another's.
func MakeRunDir(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("creating run directory: %w", err)
	}
	f, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer f.Close()
	if names, err := f.Readdirnames(1); err == nil && len(names) > 0 {
		return fmt.Errorf("run directory %s is not empty; choose another with --out", dir)
	} else if err != nil && !errors.Is(err, io.EOF) {
		return err
	}
	return nil
}

func WriteFile(path string, write func(io.Writer) error) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := write(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
