package archive

import (
	"os"
	"strings"

	"github.com/tressi/tressi/compile"
	"github.com/tressi/tressi/results"
)

// slotRowsOf counts rows per slot against the schedule the plan compiled
// to again (s), or, when it did not (a sensitive variable not given), the
// one read from the run's plan.tplan; nil (with a warning saying why) when
// neither can be had. A schedule read from the file reads its slots from
// it again when the counts are compared: done closes it.
func slotRowsOf(v *Verification, s *compile.Schedule, path, name string, shard results.Shard) (per *compile.SlotRows, done func()) {
	if s != nil {
		per = compile.NewSlotRows(s, shard.Index, shard.Count)
		if per == nil {
			v.add("warning", name, "rows per slot not checked: the shard has more than %d slots", compile.MaxCountedSlots)
		}
		return per, func() {}
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, func() {} // the plan.tplan check has said why
	}
	tp, err := compile.ReadTPlan(f)
	if err != nil {
		v.add("warning", name, "rows per slot not checked: %v", err)
		f.Close()
		return nil, func() {}
	}
	per = compile.NewSlotRows(tp.Schedule, shard.Index, shard.Count)
	if per == nil {
		v.add("warning", name, "rows per slot not checked: the shard has more than %d slots", compile.MaxCountedSlots)
	}
	return per, func() { f.Close() }
}

// checkSlotRows says whether every slot holds the rows it stands for: one
// for an endpoint's, one per request of its steps for a session's.
func checkSlotRows(v *Verification, resName string, per *compile.SlotRows) {
	if per == nil || !v.OK() {
		return // nothing counted, or the rows already failed
	}
	n, first, err := per.Mismatches(3)
	if err != nil {
		v.add("warning", resName, "rows per slot not checked: reading the schedule's slots: %v", err)
		return
	}
	if n == 0 {
		v.add("ok", resName, "every slot holds the rows its schedule says it stands for (1 for an endpoint, 1 per request of its steps for a session)")
		return
	}
	var named []string
	for _, m := range first {
		named = append(named, m.String())
	}
	v.add("FAIL", resName, "%d slots hold another number of rows than their schedule says they stand for (%s): rows repeated or lost by the run that wrote them",
		n, strings.Join(named, "; "))
}
