// Package arrowmem holds what tressi's Arrow writers share: an allocator
// that recycles buffers between batches, for writers that encode a long
// stream of similar batches, and the size from which a stream's buffers
// are worth compressing.
package arrowmem

import (
	"math/bits"
	"sync"
)

// Recycler is an Arrow allocator that keeps freed buffers for the next
// batch. The IPC writer allocates (and frees) its compressed buffers and
// messages for every batch: with Go's allocator that is a run's steady
// stream of garbage, which a long run pays for in GC and in a heap that
// keeps growing towards its goal. Buffers come in power-of-two sizes and at
// most keep of each size wait for reuse.
type Recycler struct {
	mu   sync.Mutex
	free [64][][]byte // by log2 of capacity
}

const keep = 32

func (r *Recycler) Allocate(size int) []byte {
	if size <= 0 {
		return []byte{}
	}
	class := bits.Len(uint(size - 1))
	r.mu.Lock()
	if n := len(r.free[class]); n > 0 {
		b := r.free[class][n-1]
		r.free[class] = r.free[class][:n-1]
		r.mu.Unlock()
		clear(b[:size]) // Arrow's allocators hand out zeroed memory
		return b[:size]
	}
	r.mu.Unlock()
	return make([]byte, size, 1<<class)
}

func (r *Recycler) Reallocate(size int, b []byte) []byte {
	if size <= cap(b) {
		old := len(b)
		b = b[:size]
		if size > old {
			clear(b[old:])
		}
		return b
	}
	nb := r.Allocate(size)
	copy(nb, b)
	r.Free(b)
	return nb
}

func (r *Recycler) Free(b []byte) {
	c := cap(b)
	if c == 0 || c&(c-1) != 0 {
		return // not one of ours: the GC has it
	}
	class := bits.Len(uint(c - 1))
	r.mu.Lock()
	if len(r.free[class]) < keep {
		r.free[class] = append(r.free[class], b[:c])
	}
	r.mu.Unlock()
}
