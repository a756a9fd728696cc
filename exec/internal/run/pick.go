package run

import (
	"math"
	"sync/atomic"
)

// next picks the next request's slot and entry. A capped entry whose bucket
// is empty is passed over for the next pick instead of making the user
// sleep; after a whole round of refusals ok is false.
func (ex *Executor) NextEntry(session *atomic.Uint64) (k uint64, entry int, ok bool) {
	for range max(len(ex.S.Entries), 1) {
		k = session.Add(1) - 1
		entry = ex.Pick(k)
		if b := ex.Bucks[entry]; b == nil || b.take(ex.Clock.Now()) {
			return k, entry, true
		}
	}
	return 0, 0, false
}

// Bucket is a lock-free rate limiter (the generic cell rate algorithm):
// tat is the theoretical arrival time of the next allowed request.
type Bucket struct {
	interval int64 // ns between requests at the max rate
	tat      atomic.Int64
}

func NewBucket(rate float64) *Bucket {
	if rate <= 0 {
		return nil
	}
	return &Bucket{interval: int64(math.Max(1, 1e9/rate))}
}

// take reports whether a request may start at now, consuming the permit.
func (b *Bucket) take(now int64) bool {
	for {
		tat := b.tat.Load()
		if tat > now {
			return false
		}
		// max: an idle bucket does not save up a burst.
		if b.tat.CompareAndSwap(tat, max(tat, now)+b.interval) {
			return true
		}
	}
}
