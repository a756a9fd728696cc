package exec

import (
	"math"
	"runtime"
	"sync/atomic"
	"time"

	"github.com/tressi/tressi/compile"
)

// slotRing hands the open model's slots from the single producer to the
// workers without a mutex: a bounded queue of Vyukov's design where each
// cell's sequence number says whether it is free for the producer or full
// for the worker that claimed its index with the atomic cursor.
type slotRing struct {
	cells []ringCell
	mask  uint64
	_     [64]byte // keep the hot cursor off the slice header's cache line
	// cursor is the next index a worker claims.
	cursor atomic.Uint64
	_      [56]byte
	// end is the number of slots the producer wrote, set once the stream
	// is exhausted; MaxUint64 until then.
	end atomic.Uint64
}

type ringCell struct {
	seq  atomic.Uint64 // i: free for index i; i+1: holds index i
	k    uint64        // slot number in the whole schedule
	slot compile.Slot
}

// ringSize is the producer's lookahead: enough that workers never wait for
// it, small enough (64 KiB of cells) to stay in cache.
const ringSize = 4096

func newSlotRing(size int) *slotRing {
	r := &slotRing{cells: make([]ringCell, size), mask: uint64(size - 1)}
	for i := range r.cells {
		r.cells[i].seq.Store(uint64(i))
	}
	r.end.Store(math.MaxUint64)
	return r
}

// produce streams the shard's slots from src into the ring until the
// schedule is exhausted. Slot k of the schedule belongs to shard k mod n.
func (r *slotRing) produce(src compile.SlotSource, shardIndex, shardCount uint64) {
	chunk := make([]compile.Slot, 4096)
	var k, i uint64 // k: position in the schedule; i: position in the ring
	for {
		n := src.Next(chunk)
		if n == 0 {
			break
		}
		for _, s := range chunk[:n] {
			if k%shardCount == shardIndex {
				r.put(i, k, s)
				i++
			}
			k++
		}
	}
	r.end.Store(i)
}

func (r *slotRing) put(i, k uint64, s compile.Slot) {
	c := &r.cells[i&r.mask]
	for c.seq.Load() != i {
		// The ring is full: workers are a whole ring of slots behind, so
		// there is time to sleep rather than spin.
		time.Sleep(200 * time.Microsecond)
	}
	c.k, c.slot = k, s
	c.seq.Store(i + 1)
}

// claim takes the next slot; ok is false once the schedule is exhausted.
func (r *slotRing) claim() (k uint64, s compile.Slot, ok bool) {
	i := r.cursor.Add(1) - 1
	c := &r.cells[i&r.mask]
	for spins := 0; ; spins++ {
		if c.seq.Load() == i+1 {
			k, s = c.k, c.slot
			c.seq.Store(i + uint64(len(r.cells)))
			return k, s, true
		}
		if i >= r.end.Load() {
			return 0, 0, false
		}
		if spins < 64 {
			runtime.Gosched()
		} else {
			time.Sleep(50 * time.Microsecond)
		}
	}
}
