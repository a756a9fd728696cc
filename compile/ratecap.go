package compile

import "math"

// rateCaps enforces each entry's max_rate in schedule time: a token bucket
// of burst 1 per entry. With burst 1 a token is taken only when the bucket
// is full, so the bucket reduces to "the next instant a send is allowed":
// a slot selected before that instant is dropped, and the other entries keep
// their own schedule. Being decided at compile time, the cap costs the
// executor nothing and the dropped slots never appear in the stream.
type rateCaps struct {
	interval []int64 // ns between sends per entry; 0: no cap
	next     []int64 // earliest allowed due per entry
}

// newRateCaps returns nil when no entry is capped, so the stream skips the check.
func newRateCaps(entries []Entry) *rateCaps {
	var c *rateCaps
	for i, e := range entries {
		if e.MaxRate <= 0 {
			continue
		}
		if c == nil {
			c = &rateCaps{interval: make([]int64, len(entries)), next: make([]int64, len(entries))}
		}
		c.interval[i] = capInterval(e.MaxRate)
	}
	return c
}

// capInterval rounds the interval up so the cap is never exceeded.
func capInterval(rate float64) int64 {
	iv := math.Ceil(1e9 / rate)
	if iv > MaxDue {
		return MaxDue + 1
	}
	return int64(iv)
}

// clone gives a fresh bucket state with the same caps, for a new stream.
func (c *rateCaps) clone() *rateCaps {
	if c == nil {
		return nil
	}
	return &rateCaps{interval: c.interval, next: make([]int64, len(c.next))}
}

// allow reports whether entry e may send at due, and takes its token if so.
func (c *rateCaps) allow(e int, due int64) bool {
	iv := c.interval[e]
	if iv == 0 {
		return true
	}
	if due < c.next[e] {
		return false
	}
	c.next[e] = due + iv
	return true
}
