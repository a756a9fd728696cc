package report

import (
	"fmt"
	"strings"

	"github.com/RoaringBitmap/roaring/v2/roaring64"
	"github.com/tressi/tressi/results"
)

// ShardInfo describes one input of the report.
type ShardInfo struct {
	Path  string `json:"path"`
	Shard string `json:"shard"` // i/n from the file's metadata
	Rows  int64  `json:"rows"`
	// Truncated: the input holds less than its part of the run (a cut-off
	// file, slots without a row, a run that never finished).
	Truncated    bool  `json:"truncated"`
	MissingSlots int64 `json:"missing_slots"`
}

// shardCheck holds one slot set per input, so that several inputs can be
// proven to be disjoint shards of one schedule. Roaring bitmaps keep a
// million striped slots in a few hundred KB and intersect them fast.
type shardCheck struct {
	inputs []Input
	metas  []results.Meta
	slots  []*roaring64.Bitmap
	// gather collects each input's slots while it is read (inputRead
	// makes them its bitmap).
	gather []*slotSet
}

// needsShardCheck says whether slot sets must be kept: with several inputs
// (disjointness) or one input that says it is a shard (coverage).
func needsShardCheck(metas []results.Meta) bool {
	return len(metas) > 1 || (len(metas) == 1 && metas[0].Shard.Count > 1)
}

// knowsSlots says whether any input's schedule states its slot count, so
// slots without a row can be counted.
func knowsSlots(metas []results.Meta) bool {
	for _, m := range metas {
		if m.Slots > 0 {
			return true
		}
	}
	return false
}

func newShardCheck(inputs []Input, metas []results.Meta) *shardCheck {
	c := &shardCheck{inputs: inputs, metas: metas}
	for range inputs {
		c.slots = append(c.slots, roaring64.New())
		c.gather = append(c.gather, newSlotSet())
	}
	return c
}

func (c *shardCheck) add(input int, slots []uint64) { c.gather[input].addMany(slots) }

// inputRead turns the slots gathered from input into its bitmap.
func (c *shardCheck) inputRead(input int) {
	c.slots[input] = c.gather[input].bitmap()
	c.gather[input] = nil
}

func (c *shardCheck) label(i int) string {
	return fmt.Sprintf("%s (shard %s)", c.inputs[i].Path, c.metas[i].Shard)
}

// disjoint fails when two inputs hold the same slot: merging them would
// count those requests twice.
func (c *shardCheck) disjoint() error {
	var problems []string
	for i := range c.slots {
		for j := i + 1; j < len(c.slots); j++ {
			n := c.slots[i].AndCardinality(c.slots[j])
			if n == 0 {
				continue
			}
			both := roaring64.And(c.slots[i], c.slots[j])
			hint := "shards of one run hold disjoint slots"
			if c.metas[i].Shard == c.metas[j].Shard {
				hint = "did you pass the same shard twice?"
			}
			problems = append(problems, fmt.Sprintf("%s and %s both hold %d slots (first %d): %s",
				c.label(i), c.label(j), n, both.Minimum(), hint))
		}
	}
	if len(problems) > maxListed {
		problems = append(problems[:maxListed], fmt.Sprintf("and %d more pairs", len(problems)-maxListed))
	}
	if len(problems) > 0 {
		return fmt.Errorf("overlapping inputs:\n  %s", strings.Join(problems, "\n  "))
	}
	return nil
}

// coverage warns about shards that were not passed and about slots of
// 0..max that no input holds: the report then covers part of the run.
func (c *shardCheck) coverage() []string {
	var warnings []string
	if n := c.metas[0].Shard.Count; n > 1 {
		have := map[int]bool{}
		for _, m := range c.metas {
			have[m.Shard.Index] = true
		}
		var missing []int
		for i := 0; i < n; i++ {
			if !have[i] {
				missing = append(missing, i)
			}
		}
		if len(missing) > 0 {
			warnings = append(warnings, fmt.Sprintf("shards %s of this run were not passed: the report covers %d of %d shards",
				shardRanges(missing, n), n-len(missing), n))
		}
	}
	all := roaring64.FastOr(c.slots...)
	if all.IsEmpty() {
		return warnings
	}
	span := all.Maximum() + 1
	if held := all.GetCardinality(); held < span {
		first := firstMissing(all)
		warnings = append(warnings, fmt.Sprintf("%d of slots 0..%d are in no input (first missing: %d): the report covers part of the run",
			span-held, span-1, first))
	}
	return warnings
}

// firstMissing is the smallest slot not in b (b is not full up to its max).
func firstMissing(b *roaring64.Bitmap) uint64 {
	it := b.Iterator()
	var want uint64
	for it.HasNext() {
		if it.Next() != want {
			return want
		}
		want++
	}
	return want
}
