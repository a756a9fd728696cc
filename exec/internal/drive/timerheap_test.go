package drive

import (
	"slices"
	"testing"

	"pgregory.net/rapid"
)

// The timer heap pops instants in order, whatever order they were pushed
// in, each with what was pushed with it.
func TestTimerHeapOrder(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		ats := rapid.SliceOf(rapid.Int64Range(0, 1000)).Draw(t, "ats")
		var h TimerHeap[int32]
		for i, at := range ats {
			h.Push(at, int32(i))
		}
		var got []int64
		for h.Len() > 0 {
			at, i := h.Pop()
			if ats[i] != at {
				t.Fatalf("popped %d with entry %d, pushed with %d", at, i, ats[i])
			}
			got = append(got, at)
		}
		want := slices.Clone(ats)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Fatalf("popped %v, want %v", got, want)
		}
	})
}
