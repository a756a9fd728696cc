package report

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/tressi/tressi/compile"
	"github.com/tressi/tressi/results"
)

// PlanFile is the compiled schedule kept in a run directory.
const PlanFile = "plan.tplan"

// RunPlan reads the header of the plan.tplan beside an input's results and
// checks it is the schedule the results were recorded from: results carry
// their schedule hash, so a plan.tplan swapped in from another run is
// caught before its thresholds or sources are trusted. It returns nil and
// no error when there is no plan.tplan.
func RunPlan(in Input, m results.Meta) (*compile.TPlanInfo, error) {
	path := filepath.Join(filepath.Dir(in.Results), PlanFile)
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	info, err := compile.ReadTPlanInfo(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if m.ScheduleHash != "" && info.Hash != m.ScheduleHash {
		return &info, fmt.Errorf("%s is schedule %s but %s was recorded from schedule %s: the plan beside these results is not theirs (copied from another run?)",
			path, short(info.Hash), in.Results, short(m.ScheduleHash))
	}
	return &info, nil
}

// integrityWarnings are what the report says about the trust it can put in
// its inputs: a plan.tplan that is not the results' schedule, batches
// written without checksums.
func integrityWarnings(inputs []Input, readers []*results.Reader) []string {
	var out []string
	for i, r := range readers {
		if _, err := RunPlan(inputs[i], r.Meta); err != nil {
			out = append(out, err.Error())
		}
		if r.Unchecked > 0 {
			out = append(out, fmt.Sprintf("%s: %d batches carry no checksum (written by an older tressi or another Arrow writer): damage inside them cannot be detected", inputs[i].Results, r.Unchecked))
		}
	}
	return out
}
