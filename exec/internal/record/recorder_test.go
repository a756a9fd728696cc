package record

import (
	"runtime"
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
		r := NewRecorder(nil, workers, ClosedBatchRows)
		n := spareBuffers(workers)
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		for range n {
			if b := r.Buffer(); len(b) != 0 || cap(b) != r.rowsCap {
				t.Fatalf("%d workers: a spare buffer of length %d, capacity %d, want 0 and %d", workers, len(b), cap(b), r.rowsCap)
			}
		}
		runtime.ReadMemStats(&after)
		if d := after.Mallocs - before.Mallocs; d != 0 {
			t.Errorf("%d workers: taking the %d spare buffers made %d allocations, want none", workers, n, d)
		}
		if b := r.Buffer(); cap(b) != r.rowsCap {
			t.Errorf("%d workers: a buffer beyond the spares has capacity %d, want %d", workers, cap(b), r.rowsCap)
		}
	}
}
