package report

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/tressi/tressi/results"
)

// File names inside a run directory (docs/contracts.md, "The run directory").
const (
	ResultsFile = "results.arrow"
	SamplesFile = "samples.arrow"
	MetaFile    = "meta.json"
)

// Input is one results file and what sits beside it in its run directory.
type Input struct {
	Path    string // as the user gave it, for messages
	Results string
	Samples string // "" when the run kept no samples
	Meta    string // "" when there is no meta.json
	// RunDir: the input is a run directory or the results.arrow of one,
	// where a missing meta.json means the run never finished.
	RunDir bool
}

// ResolveInput accepts a run directory or a results file. A file named
// results.arrow still picks up the samples and meta.json beside it.
func ResolveInput(path string) (Input, error) {
	st, err := os.Stat(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return Input{}, fmt.Errorf("%s does not exist: pass a run directory written by tressi apply, or its %s", path, ResultsFile)
		}
		return Input{}, err
	}
	in := Input{Path: path, Results: path}
	dir := filepath.Dir(path)
	if st.IsDir() {
		dir = path
		in.Results = filepath.Join(path, ResultsFile)
		if _, err := os.Stat(in.Results); err != nil {
			return Input{}, fmt.Errorf("%s is a directory without %s: pass a run directory written by tressi apply, or a results file", path, ResultsFile)
		}
	} else if filepath.Base(path) != ResultsFile {
		return in, nil
	}
	in.RunDir = true
	if exists(filepath.Join(dir, SamplesFile)) {
		in.Samples = filepath.Join(dir, SamplesFile)
	}
	if exists(filepath.Join(dir, MetaFile)) {
		in.Meta = filepath.Join(dir, MetaFile)
	}
	return in, nil
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// openInputs opens every input's results and checks, before reading any
// row, that they all come from one schedule.
func openInputs(inputs []Input) ([]*results.Reader, error) {
	readers := make([]*results.Reader, 0, len(inputs))
	closeAll := func() {
		for _, r := range readers {
			r.Close()
		}
	}
	for _, in := range inputs {
		r, err := results.Open(in.Results)
		if err != nil {
			closeAll()
			return nil, err
		}
		readers = append(readers, r)
	}
	for i := 1; i < len(readers); i++ {
		if a, b := readers[0].Meta.ScheduleHash, readers[i].Meta.ScheduleHash; a != b {
			closeAll()
			return nil, fmt.Errorf("%s (schedule hash %q) and %s (schedule hash %q) come from different schedules: several inputs must be shards of one run", inputs[0].Path, a, inputs[i].Path, b)
		}
	}
	return readers, nil
}

// readSamples gathers the sampled responses of every input, keeping the
// first per (endpoint, status, error) as the executor does within one shard.
func readSamples(inputs []Input) ([]Sample, []string) {
	var out []Sample
	var warnings []string
	seen := map[[3]string]bool{}
	for _, in := range inputs {
		if in.Samples == "" {
			continue
		}
		f, err := os.Open(in.Samples)
		if err != nil {
			warnings = append(warnings, fmt.Sprintf("%s: %v (report made without its samples)", in.Samples, err))
			continue
		}
		ss, err := results.ReadSamples(f)
		f.Close()
		if err != nil {
			warnings = append(warnings, fmt.Sprintf("%s: %v (kept %d samples read before it)", in.Samples, err, len(ss)))
		}
		for _, s := range ss {
			key := [3]string{s.Endpoint, fmt.Sprint(s.Status), s.Error}
			if !seen[key] {
				seen[key] = true
				out = append(out, newSample(s))
			}
		}
	}
	return out, warnings
}

// maxMetaBytes bounds meta.json: tressi writes a few KiB (the command
// line is the longest field).
const maxMetaBytes = 1 << 20

// readEnvironment reads meta.json as a free-form object: the executor owns
// its fields, the report only shows them.
func readEnvironment(in Input) (map[string]any, error) {
	if in.Meta == "" {
		return nil, nil
	}
	// A run directory is untrusted input: read no more than any meta.json
	// tressi writes could hold, so a hostile one cannot size what the
	// report allocates.
	f, err := os.Open(in.Meta)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxMetaBytes+1))
	if err != nil {
		return nil, err
	}
	if len(data) > maxMetaBytes {
		return nil, fmt.Errorf("%s is larger than %d KiB, more than tressi ever writes there: left out of the report", in.Meta, maxMetaBytes>>10)
	}
	var env map[string]any
	if err := json.Unmarshal(data, &env); err != nil {
		return nil, fmt.Errorf("%s is not a JSON object: %v", in.Meta, err)
	}
	return env, nil
}
