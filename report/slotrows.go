package report

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/tressi/tressi/compile"
	"github.com/tressi/tressi/results"
)

// slotRowsOf counts a run's rows slot by slot against the schedule in the
// plan.tplan beside its results, so the report says when a slot holds
// another number of rows than it stands for (rows a run repeated or lost:
// figures such as requests_per_session are then wrong). Only runs with
// sessions are counted: their slot column is read anyway, and a plain
// run's report does without it. nil without a plan.tplan that is the
// results' own; done closes the file the schedule reads its slots from.
func slotRowsOf(in Input, m results.Meta) (per *compile.SlotRows, done func()) {
	done = func() {}
	if len(m.Scenarios) == 0 {
		return nil, done
	}
	f, err := os.Open(filepath.Join(filepath.Dir(in.Results), PlanFile))
	if err != nil {
		return nil, done
	}
	tp, err := compile.ReadTPlan(f)
	if err != nil || (m.ScheduleHash != "" && tp.Schedule.Hash != m.ScheduleHash) {
		f.Close() // integrityWarnings says why
		return nil, done
	}
	if per = compile.NewSlotRows(tp.Schedule, m.Shard.Index, m.Shard.Count); per == nil {
		f.Close()
		return nil, done
	}
	return per, func() { f.Close() }
}

// slotRowWarnings says which slots hold another number of rows than they
// stand for.
func slotRowWarnings(in Input, per *compile.SlotRows) []string {
	if per == nil {
		return nil
	}
	n, first, err := per.Mismatches(3)
	if err != nil || n == 0 {
		return nil
	}
	var named []string
	for _, m := range first {
		named = append(named, m.String())
	}
	return []string{fmt.Sprintf("%s: %s slots hold another number of rows than their schedule says they stand for (%s): the run repeated or lost rows, and figures per session are off",
		in.Results, count(n), strings.Join(named, "; "))}
}
