package drive

import "time"

// The open model's bursts, in every engine: slots due meanwhile go out
// together, a little late. Evenly spaced single sends cost a wake-up each,
// here and in the server (a sleep and a wait: 0.125 of each per request at
// 20k req/s, where half the quantum made it 0.25 and cost ~6 % more CPU
// per request); a burst's wait spends part of the send lag's budget. So
// the quantum between two bursts follows the rate: long enough that a
// burst holds about burstSends sends, so the wake-ups per request stay as
// few at every rate, within [minQuantum, maxQuantum]. Up to 20k req/s a
// loop it is maxQuantum, which keeps the send lag's p99 within what the
// benchmarks ask of it, over HTTPS too; above, it shrinks with the rate,
// so a slot's wait for its burst does not stay 400 µs of a 1 ms budget
// where the loop has the least room (bench/README.md has the figures).
const (
	maxQuantum = int64(400 * time.Microsecond)
	minQuantum = int64(100 * time.Microsecond)
	burstSends = 8
)

// burstClock spaces the open model's bursts: one for what falls due at
// most once per quantum. Quanta count from the intended bursts, not the
// actual ones, so late wake-ups do not add up. The pacer (fasthttp engine)
// and the loops' open drivers each keep one, and tell it each slot's due
// instant (Slot), from which it learns the rate.
type burstClock struct {
	woke    int64 // the intended instant of the last burst
	quantum int64
	// lastDue is the due instant of the last slot seen, gap the running
	// mean of the gaps between slots (in ns, 1/8 weight to the newest);
	// gap is 0 until two slots were seen.
	lastDue, gap int64
}

func NewBurstClock() burstClock {
	return burstClock{woke: -1 << 62, quantum: maxQuantum, lastDue: -1 << 62}
}

// Slot learns the rate from a slot due at due, the slots coming in order:
// the quantum becomes burstSends mean gaps, within its bounds. A gap is
// counted at most maxQuantum long, so a pause in the schedule (a stage at
// rate 0) stretches the quantum to its longest at once and no further.
func (b *burstClock) Slot(due int64) {
	g := min(max(due-b.lastDue, 0), maxQuantum)
	b.lastDue = due
	if b.gap == 0 {
		b.gap = g
	} else {
		b.gap += (g - b.gap) / 8
	}
	b.quantum = min(max(burstSends*b.gap, minQuantum), maxQuantum)
}

// Quantum is the time between two bursts at the rate learned so far.
func (b *burstClock) Quantum() int64 { return b.quantum }

// at is the instant of the burst for something due at due.
func (b *burstClock) at(due int64) int64 { return max(due, b.woke+b.quantum) }

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
