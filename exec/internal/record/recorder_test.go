package record

import (
	"runtime"
	"slices"
	"testing"
)

// The recorder makes its senders' row buffers before the run: as many as
// the senders and the hand-over channel hold come without an allocation,
// each empty and of the recorder's size.
func TestRecorderBuffersMadeBeforeTheRun(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector's instrumentation allocates")
	}
	for _, workers := range []int{1, 3, 200} {
		// Mallocs is the process's: another goroutine's allocation (the
		// runtime's, under a busy machine) can fall in the window, once in
		// a while. One of the spares' own would show in every try.
		n := spareBuffers(workers)
		var allocs []uint64
		for range 3 {
			r := NewRecorder(nil, workers, ClosedBatchRows)
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			for range n {
				if b := r.Buffer(); len(b) != 0 || cap(b) != r.rowsCap {
					t.Fatalf("%d workers: a spare buffer of length %d, capacity %d, want 0 and %d", workers, len(b), cap(b), r.rowsCap)
				}
			}
			runtime.ReadMemStats(&after)
			if b := r.Buffer(); cap(b) != r.rowsCap {
				t.Errorf("%d workers: a buffer beyond the spares has capacity %d, want %d", workers, cap(b), r.rowsCap)
			}
			if allocs = append(allocs, after.Mallocs-before.Mallocs); allocs[len(allocs)-1] == 0 {
				break
			}
		}
		if slices.Min(allocs) != 0 {
			t.Errorf("%d workers: taking the %d spare buffers made %v allocations in %d tries, want none", workers, n, allocs, len(allocs))
		}
	}
}
