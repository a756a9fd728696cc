package report

import (
	"slices"
	"testing"

	"github.com/RoaringBitmap/roaring/v2/roaring64"
	"pgregory.net/rapid"
)

// TestSlotSetIsRoaring: whatever slots go in, in whatever order, the
// bitmap that comes out holds exactly them.
func TestSlotSetIsRoaring(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		s, want := newSlotSet(), roaring64.New()
		slot := rapid.OneOf(rapid.Uint64Range(0, 200_000), rapid.Uint64Range(1<<40, 1<<40+70_000), rapid.Uint64Range(1<<64-100, 1<<64-1))
		for range rapid.IntRange(0, 20).Draw(t, "batches") {
			var batch []uint64
			if rapid.Bool().Draw(t, "run") {
				lo := slot.Draw(t, "lo")
				for i := range rapid.Uint64Range(0, 5000).Draw(t, "len") {
					if lo+i < lo {
						break
					}
					batch = append(batch, lo+i)
				}
			} else {
				batch = rapid.SliceOf(slot).Draw(t, "slots")
			}
			s.addMany(batch)
			want.AddMany(slices.Clone(batch))
		}
		if got := s.bitmap(); !got.Equals(want) {
			t.Fatalf("%d slots out, %d in", got.GetCardinality(), want.GetCardinality())
		}
	})
}
