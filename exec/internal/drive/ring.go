package drive

import (
	"math"
	"sync/atomic"
	"time"

	"github.com/tressi/tressi/compile"
)

// SlotRing hands the open model's slots from the pacer to the workers
// without a mutex: a bounded queue of Vyukov's design where each cell's
// sequence number says whether it is free for the pacer or released for the
// worker that claimed its index with the atomic cursor. A worker whose slot
// is not released yet parks on its own wake channel, named in the cell; the
// pacer wakes exactly that worker when it releases the slot, so nobody spins
// and nobody contends: each cell is shared by one worker and the pacer.
type SlotRing struct {
	cells []ringCell
	mask  uint64
	_     [64]byte // keep the hot cursor off the slice header's cache line
	// cursor is the next index a worker claims.
	cursor atomic.Uint64
	_      [56]byte
	// end is the number of slots the pacer released, set once the stream
	// is exhausted; MaxUint64 until then.
	end atomic.Uint64
	// exhausted is closed once end is set, waking every parked worker.
	exhausted chan struct{}
	// poke counts the pacer's requests that parked workers flush their rows.
	poke atomic.Uint64
}

type ringCell struct {
	seq    atomic.Uint64 // i: free for index i; i+1: holds index i
	waiter atomic.Pointer[chan struct{}]
	k      uint64 // slot number in the whole schedule
	slot   compile.Slot
}

// RingSize bounds how many released slots may wait for a free worker
// (a stalling server): beyond it the pacer waits for room.
const RingSize = 4096

func NewSlotRing(size int) *SlotRing {
	r := &SlotRing{cells: make([]ringCell, size), mask: uint64(size - 1), exhausted: make(chan struct{})}
	for i := range r.cells {
		r.cells[i].seq.Store(uint64(i))
	}
	r.end.Store(math.MaxUint64)
	return r
}

// Release publishes ring index i (slot k of the schedule) and wakes the
// worker waiting for it, if any.
func (r *SlotRing) Release(i, k uint64, s compile.Slot) {
	c := &r.cells[i&r.mask]
	for c.seq.Load() != i {
		// The ring is full: every worker is busy and a whole ring of
		// released slots waits for them, so there is time to sleep.
		time.Sleep(200 * time.Microsecond)
	}
	c.k, c.slot = k, s
	c.seq.Store(i + 1)
	if w := c.waiter.Swap(nil); w != nil {
		select {
		case *w <- struct{}{}:
		default: // a token is already pending
		}
	}
}

// Finish marks the stream exhausted after n released slots.
func (r *SlotRing) Finish(n uint64) {
	r.end.Store(n)
	close(r.exhausted)
}

// WakeParked wakes the workers parked on indices [from, cursor) so they can
// flush rows they would otherwise hold through a long wait.
func (r *SlotRing) WakeParked(from uint64) {
	r.poke.Add(1)
	to := r.cursor.Load()
	for i := from; i < to && i < from+uint64(len(r.cells)); i++ {
		if w := r.cells[i&r.mask].waiter.Swap(nil); w != nil {
			select {
			case *w <- struct{}{}:
			default:
			}
		}
	}
}

// Claim takes the next slot, parking on wake until the pacer releases it;
// ok is false once the schedule is exhausted. idle runs whenever the worker
// was woken without its slot (the pacer asked parked workers to flush).
func (r *SlotRing) Claim(wake *chan struct{}, idle func()) (k uint64, s compile.Slot, ok bool) {
	i := r.cursor.Add(1) - 1
	c := &r.cells[i&r.mask]
	for {
		if c.seq.Load() == i+1 {
			c.waiter.CompareAndSwap(wake, nil)
			k, s = c.k, c.slot
			c.seq.Store(i + uint64(len(r.cells)))
			return k, s, true
		}
		if i >= r.end.Load() {
			c.waiter.CompareAndSwap(wake, nil)
			return 0, 0, false
		}
		// Name this worker in the cell, then look again: the pacer either
		// released before the store (seen below) or sees the waiter.
		c.waiter.Store(wake)
		if c.seq.Load() == i+1 || i >= r.end.Load() {
			continue
		}
		select {
		case <-*wake:
		case <-r.exhausted:
		}
		if c.seq.Load() != i+1 && idle != nil {
			idle()
		}
	}
}
