package drive

import "time"

// burstQuantum is the shortest time between two bursts of the open model,
// in every engine: slots due meanwhile go out together, a little late.
// Evenly spaced single sends cost a wake-up each, here and in the server;
// the quantum keeps the send lag's p99 within what the benchmarks ask of
// it, over HTTPS too (bench/README.md has the figures).
const burstQuantum = int64(400 * time.Microsecond)

// burstClock spaces the open model's bursts: one for what falls due at
// most once per quantum. Quanta count from the intended bursts, not the
// actual ones, so late wake-ups do not add up. The pacer (fasthttp engine)
// and the loops' open drivers each keep one.
type burstClock struct{ woke int64 } // the intended instant of the last burst

func NewBurstClock() burstClock { return burstClock{woke: -1 << 62} }

// at is the instant of the burst for something due at due.
func (b *burstClock) at(due int64) int64 { return max(due, b.woke+burstQuantum) }

// Take records the burst for something due at due and returns its instant.
func (b *burstClock) Take(due int64) int64 {
	b.woke = b.at(due)
	return b.woke
}

// Fire says whether the burst for something due at due (-1: nothing) has
// come by now, or the run stops, and records it if so.
func (b *burstClock) Fire(now, due int64, stopping bool) bool {
	if due < 0 || (!stopping && now < b.at(due)) {
		return false
	}
	b.Take(due)
	return true
}

// Wake is when a loop must wake for what is due at due, -1 for nothing.
func (b *burstClock) Wake(due int64) int64 {
	if due < 0 {
		return -1
	}
	return b.at(due)
}
