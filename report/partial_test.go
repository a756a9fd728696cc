package report

import (
	"strings"
	"testing"

	"github.com/tressi/tressi/results"
)

const finishedMeta = `{"exit_status": "ok", "requests": %d}`

// A run killed mid-way (kill -9, a crash, a full disk) leaves fewer rows
// than its schedule has slots: the report must say so, not pass the part
// off as the whole.
func TestPartialRunIsReported(t *testing.T) {
	rows := stoppedRows(3011, 3011, 0)
	for _, tc := range []struct {
		name     string
		meta     string
		warnings []string // substrings, one per warning expected
	}{
		{"killed, no meta.json", "", []string{"3,011 of the schedule's 20,000 slots", "16,989", "meta.json is missing"}},
		{"killed, meta.json of a run still going", `{"exit_status": "running"}`, []string{"16,989", "did not finish"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := writeRows(t, results.Meta{PlanName: "p", ScheduleHash: "h", Slots: 20000}, []string{"home"}, rows, tc.meta)
			rep, err := Build([]string{dir}, Options{})
			if err != nil {
				t.Fatal(err)
			}
			s := rep.Summary
			if !s.Partial || s.MissingSlots != 16989 {
				t.Errorf("partial %v, missing_slots %d; want true, 16989", s.Partial, s.MissingSlots)
			}
			if !s.Shards[0].Truncated {
				t.Errorf("shards[0].truncated = false for 3,011 of 20,000 slots")
			}
			all := strings.Join(s.Warnings, "\n")
			for _, w := range tc.warnings {
				if !strings.Contains(all, w) {
					t.Errorf("warnings %q do not say %q", s.Warnings, w)
				}
			}
			var text strings.Builder
			if err := rep.Render(&text, Text); err != nil {
				t.Fatal(err)
			}
			if first := strings.SplitN(text.String(), "\n", 2)[0]; !strings.Contains(first, "PARTIAL") {
				t.Errorf("the text report starts %q; a partial run must say so first", first)
			}
		})
	}
}

// The closed model's row count is not known in advance: a missing or
// unfinished meta.json, or one whose count disagrees, is what tells.
func TestPartialClosedRunIsReported(t *testing.T) {
	rows := stoppedRows(500, 500, 0)
	for _, tc := range []struct{ name, meta, want string }{
		{"no meta.json", "", "meta.json is missing"},
		{"meta.json counts more", `{"exit_status": "ok", "requests": 800}`, "300"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := writeRows(t, results.Meta{PlanName: "p", ScheduleHash: "h"}, []string{"home"}, rows, tc.meta)
			rep, err := Build([]string{dir}, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if !rep.Partial || !strings.Contains(strings.Join(rep.Warnings, "\n"), tc.want) {
				t.Errorf("partial %v, warnings %q; want partial and %q", rep.Partial, rep.Warnings, tc.want)
			}
		})
	}
}

func TestCompleteRunIsNotPartial(t *testing.T) {
	rows := stoppedRows(2000, 2000, 0)
	for _, tc := range []struct {
		name  string
		slots int64
	}{{"open", 2000}, {"closed", 0}} {
		t.Run(tc.name, func(t *testing.T) {
			dir := writeRows(t, results.Meta{PlanName: "p", ScheduleHash: "h", Slots: tc.slots}, []string{"home"}, rows,
				strings.Replace(finishedMeta, "%d", "2000", 1))
			rep, err := Build([]string{dir}, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if rep.Partial || rep.MissingSlots != 0 || len(rep.Warnings) != 0 {
				t.Errorf("partial %v, missing %d, warnings %q for a complete run", rep.Partial, rep.MissingSlots, rep.Warnings)
			}
		})
	}
}

// A shard holds the slots k with k mod n = i, and only those are expected.
func TestPartialShardCountsItsOwnSlots(t *testing.T) {
	var rows []results.Row
	for _, r := range stoppedRows(1000, 1000, 0) {
		if r.Slot%4 == 1 && r.Slot < 900 {
			rows = append(rows, r)
		}
	}
	dir := writeRows(t, results.Meta{PlanName: "p", ScheduleHash: "h", Slots: 1000, Shard: results.Shard{Index: 1, Count: 4}},
		[]string{"home"}, rows, strings.Replace(finishedMeta, "%d", "250", 1))
	rep, err := Build([]string{dir}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if rep.MissingSlots != 25 {
		t.Errorf("missing_slots = %d, want 25 (slots 901, 905, … 997 of shard 1/4)", rep.MissingSlots)
	}
}
