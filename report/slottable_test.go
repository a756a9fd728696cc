package report

import (
	"testing"

	"pgregory.net/rapid"
)

// TestSlotTableKeepsTheLargest: the table answers like a map of slot to
// the largest value stored there, 0 for slots never stored.
func TestSlotTableKeepsTheLargest(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		var tab slotTable
		want := map[uint64]uint32{}
		slot := rapid.OneOf(rapid.Uint64Range(0, 300_000), rapid.Uint64Range(1<<29, 1<<29+10))
		for range rapid.IntRange(0, 200).Draw(t, "n") {
			s, v := slot.Draw(t, "slot"), rapid.Uint32().Draw(t, "v")
			tab.maxAt(s, v)
			want[s] = max(want[s], v)
		}
		for s, v := range want {
			if got := tab.at(s); got != v {
				t.Fatalf("slot %d: %d, want %d", s, got, v)
			}
		}
		if probe := slot.Draw(t, "probe"); tab.at(probe) != want[probe] {
			t.Fatalf("slot %d: %d, want %d", probe, tab.at(probe), want[probe])
		}
	})
}
