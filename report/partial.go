package report

import (
	"fmt"

	"github.com/RoaringBitmap/roaring/v2/roaring64"

	"github.com/tressi/tressi/results"
)

// A run killed with SIGKILL, crashed, or stopped by a full disk leaves fewer
// rows than it had slots, and a report of those rows alone would pass the
// part off as the whole. Two things tell: the open model's schedule knows
// its slot count (results metadata tressi.slots), so every slot without a
// row is counted; and meta.json, written when the run starts and again when
// it ends, says whether the run finished and how many rows it recorded.

// shardSlots is how many of the schedule's n slots belong to shard sh
// (slot k belongs to shard k mod count).
func shardSlots(n int64, sh results.Shard) int64 {
	if sh.Count <= 1 {
		return n
	}
	i, c := int64(sh.Index), int64(sh.Count)
	if i >= n {
		return 0
	}
	return (n-1-i)/c + 1
}

// missingSlots counts the slots of in's shard that have no row in held.
func missingSlots(m results.Meta, held *roaring64.Bitmap) int64 {
	if m.Slots <= 0 {
		return 0
	}
	want := shardSlots(m.Slots, m.Shard)
	have := int64(held.Rank(uint64(m.Slots - 1))) // slots below the count
	return max(want-have, 0)
}

// runEnd is what meta.json says about how a run ended.
type runEnd struct {
	missing  bool   // no meta.json at all
	status   string // exit_status
	requests int64  // rows the executor recorded; -1 when not said
	livePID  int    // the process still running the run on this host; 0: none (inprogress.go)
}

func runEndOf(env map[string]any, in Input) runEnd {
	if in.Meta == "" {
		return runEnd{missing: in.RunDir, requests: -1}
	}
	e := runEnd{requests: -1}
	e.status, _ = env["exit_status"].(string)
	if n, ok := env["requests"].(float64); ok && e.status != statusRunning {
		e.requests = int64(n)
	}
	if pid, ok := runningHere(env); ok && e.status == statusRunning {
		e.livePID = pid
	}
	return e
}

// statusRunning is meta.json's exit_status while the run goes on.
const statusRunning = "running"

// completeness checks one input against its schedule and its meta.json; it
// returns the warnings and the slots without a row.
func completeness(in Input, m results.Meta, held *roaring64.Bitmap, rows int64, end runEnd) (warnings []string, missing int64, partial bool) {
	if end.livePID > 0 {
		missing = missingSlots(m, held)
		warnings = append(warnings, fmt.Sprintf("%s: the run is still in progress (process %d on this host): the figures cover the %s rows recorded so far; report it again once it has ended",
			in.Path, end.livePID, count(rows)))
		return warnings, missing, true
	}
	if missing = missingSlots(m, held); missing > 0 {
		partial = true
		of := fmt.Sprintf("the schedule's %s slots", count(m.Slots))
		if m.Shard.Count > 1 {
			of = fmt.Sprintf("the %s slots of shard %s (of the schedule's %s)", count(shardSlots(m.Slots, m.Shard)), m.Shard, count(m.Slots))
		}
		warnings = append(warnings, fmt.Sprintf("%s: only %s of %s have a row, %s have none: the run was cut short (killed, crashed or out of disk space) before recording them, and the figures cover only the slots recorded",
			in.Results, count(shardSlots(m.Slots, m.Shard)-missing), of, count(missing)))
	}
	switch {
	case end.missing:
		partial = true
		warnings = append(warnings, fmt.Sprintf("%s: %s is missing: the run did not finish (it was killed or crashed before writing it), so its results may be incomplete",
			in.Path, MetaFile))
	case end.status == statusRunning:
		partial = true
		warnings = append(warnings, fmt.Sprintf("%s: %s says the run was still running, and no process of this host runs it: it did not finish (it was killed or crashed, or it runs on another host), so its results may be incomplete",
			in.Path, MetaFile))
	case end.requests > rows:
		partial = true
		warnings = append(warnings, fmt.Sprintf("%s: %s counts %s rows recorded, the results hold %s: %s are missing",
			in.Path, MetaFile, count(end.requests), count(rows), count(end.requests-rows)))
	}
	return warnings, missing, partial
}
