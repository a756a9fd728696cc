package exec

import (
	"slices"
	"testing"

	"pgregory.net/rapid"
)

// The timer heap pops instants in order, whatever order they were pushed in.
func TestWSTimersOrder(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		ats := rapid.SliceOf(rapid.Int64Range(0, 1000)).Draw(t, "ats")
		var h wsTimers
		for i, at := range ats {
			h.push(wsTimer{at: at, id: int32(i)})
		}
		var got []int64
		for len(h) > 0 {
			got = append(got, h.pop().at)
		}
		want := slices.Clone(ats)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Fatalf("popped %v, want %v", got, want)
		}
	})
}
