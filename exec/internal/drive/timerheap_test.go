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

// Hasten brings the entries it is asked to forward to now, leaves the
// others where they were, and the heap still pops in order.
func TestTimerHeapHasten(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		ats := rapid.SliceOfN(rapid.Int64Range(0, 1000), 1, 50).Draw(t, "ats")
		now := rapid.Int64Range(0, 1000).Draw(t, "now")
		var h TimerHeap[int32]
		for i, at := range ats {
			h.Push(at, int32(i))
		}
		odd := func(i int32) bool { return i%2 == 1 }
		h.Hasten(now, odd)
		want := slices.Clone(ats)
		for i := range want {
			if odd(int32(i)) && want[i] > now {
				want[i] = now
			}
		}
		var got []int64
		for h.Len() > 0 {
			at, i := h.Pop()
			if want[i] != at {
				t.Fatalf("entry %d popped at %d, want %d (pushed at %d, now %d)", i, at, want[i], ats[i], now)
			}
			got = append(got, at)
		}
		if !slices.IsSorted(got) {
			t.Fatalf("popped out of order: %v", got)
		}
	})
}
