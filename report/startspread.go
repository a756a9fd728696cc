package report

import (
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"time"

	"github.com/tressi/tressi/results"
)

// defaultStartTolerance is the start tolerance of shards whose meta.json
// does not record one (apply's --start-tolerance default).
const defaultStartTolerance = time.Second

// shardStart is how one input started, from its results' metadata and its
// meta.json (written by tressi apply).
type shardStart struct {
	label     string
	zero      time.Time // instant zero: the --start-at it was given
	firstSend time.Time // zero when unknown
	tolerance time.Duration
}

// startMeta is the part of meta.json that says how a shard started.
type startMeta struct {
	FirstSend      *time.Time `json:"first_send"`
	StartTolerance string     `json:"start_tolerance"`
}

// startSpread warns when shards of one schedule did not start together:
// given different start times (a shard re-run later, a second attempt mixed
// with the first), or sending their first requests further apart than the
// start tolerance. Either way the merged figures describe a load the plan
// never described, though each row is right.
func startSpread(inputs []Input, metas []results.Meta) []string {
	if len(inputs) < 2 {
		return nil
	}
	starts := make([]shardStart, len(inputs))
	tolerance := time.Duration(0)
	for i, in := range inputs {
		st := shardStart{label: metas[i].Shard.String(), zero: time.Unix(0, metas[i].StartUnixNs), tolerance: defaultStartTolerance}
		if m, ok := readStartMeta(in); ok {
			if m.FirstSend != nil {
				st.firstSend = *m.FirstSend
			}
			if d, err := time.ParseDuration(m.StartTolerance); err == nil && d > 0 {
				st.tolerance = d
			}
		}
		tolerance = max(tolerance, st.tolerance)
		starts[i] = st
	}
	var warnings []string
	if w := spreadWarning(starts, tolerance, func(s shardStart) time.Time { return s.zero },
		"shards of this schedule were given start times %s apart (%s), more than the start tolerance of %s: "+
			"they ran as separate loads (was one re-run?), so the merged figures are not one run's"); w != "" {
		warnings = append(warnings, w)
	}
	if w := spreadWarning(starts, tolerance, func(s shardStart) time.Time { return s.firstSend },
		"shards of this schedule sent their first requests %s apart (%s), more than the start tolerance of %s: "+
			"check the clocks of their machines (NTP) and that all were scheduled in time"); w != "" {
		warnings = append(warnings, w)
	}
	return warnings
}

// spreadWarning formats format (spread, shards, tolerance) when the instants
// at(s) of the shards that know theirs lie more than tolerance apart.
func spreadWarning(starts []shardStart, tolerance time.Duration, at func(shardStart) time.Time, format string) string {
	var known []shardStart
	for _, s := range starts {
		if !at(s).IsZero() {
			known = append(known, s)
		}
	}
	if len(known) < 2 {
		return ""
	}
	sort.SliceStable(known, func(i, j int) bool { return at(known[i]).Before(at(known[j])) })
	first, last := known[0], known[len(known)-1]
	spread := at(last).Sub(at(first))
	if spread <= tolerance {
		return ""
	}
	// Name the shards that started late relative to the earliest, as a
	// summarised list: a re-run of a few among thousands stays readable.
	var late []string
	for _, s := range known {
		if d := at(s).Sub(at(first)); d > tolerance {
			late = append(late, fmt.Sprintf("%s +%s", s.label, d.Round(time.Millisecond)))
		}
	}
	detail := fmt.Sprintf("earliest %s at %s; later: %s", first.label, at(first).UTC().Format(time.RFC3339Nano), summariseList(late))
	return fmt.Sprintf(format, spread.Round(time.Millisecond), detail, tolerance)
}

// readStartMeta reads the start fields of an input's meta.json, if any.
func readStartMeta(in Input) (startMeta, bool) {
	var m startMeta
	if in.Meta == "" {
		return m, false
	}
	data, err := os.ReadFile(in.Meta)
	if err != nil || json.Unmarshal(data, &m) != nil {
		return m, false
	}
	return m, true
}
