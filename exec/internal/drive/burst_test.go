package drive

import (
	"testing"
	"time"

	"pgregory.net/rapid"
)

// simulate drives a burst clock the way a loop does, over slots every gap
// ns for span ns, waking exactly when the clock says: it returns the
// worst lag of a slot after the first 10 ms (the clock learning the
// rate) and the number of bursts, wake-ups, per slot.
func simulate(gap, span int64) (worstLag int64, wakesPerSlot float64) {
	b := NewBurstClock()
	next, slots, bursts := int64(0), 0, 0
	now := int64(0)
	for next < span {
		now = max(now, b.Wake(next))
		if !b.Fire(now, next, false) {
			panic("the burst did not fire at its own wake instant")
		}
		bursts++
		for ; next <= now && next < span; next += gap {
			b.Slot(next)
			if next > int64(10*time.Millisecond) {
				worstLag = max(worstLag, now-next)
			}
			slots++
		}
	}
	return worstLag, float64(bursts) / float64(slots)
}

// The quantum follows the rate: slots 10 µs apart (100k/s) go out in
// bursts 100 µs apart, at most late by that, 25 µs apart (40k/s) 200 µs,
// and up to 20k/s 400 µs; a burst holds about burstSends slots where the
// quantum is between its bounds, so the wake-ups per request do not rise
// with the rate.
func TestBurstQuantumFollowsTheRate(t *testing.T) {
	us := int64(time.Microsecond)
	for _, c := range []struct {
		gap, wantQuantum int64
	}{
		{2 * us, 100 * us},   // 500k/s: the shortest quantum
		{10 * us, 100 * us},  // 100k/s
		{20 * us, 160 * us},  // 50k/s
		{25 * us, 200 * us},  // 40k/s
		{40 * us, 320 * us},  // 25k/s
		{50 * us, 400 * us},  // 20k/s
		{250 * us, 400 * us}, // 4k/s: the longest
	} {
		b := NewBurstClock()
		for i := range int64(2000) {
			b.Slot(i * c.gap)
		}
		if q := b.Quantum(); q < c.wantQuantum-100 || q > c.wantQuantum+100 {
			t.Errorf("slots %d µs apart: quantum %d ns, want %d", c.gap/us, q, c.wantQuantum)
		}
		lag, wakes := simulate(c.gap, int64(50*time.Millisecond))
		if lag > c.wantQuantum+c.gap {
			t.Errorf("slots %d µs apart: a slot %d µs late, want at most a quantum (%d µs)", c.gap/us, lag/us, c.wantQuantum/us)
		}
		if perBurst := float64(c.wantQuantum) / float64(c.gap); perBurst > 1 {
			if want := 1 / perBurst; wakes > want*1.1 {
				t.Errorf("slots %d µs apart: %.3f wake-ups per slot, want %.3f", c.gap/us, wakes, want)
			}
		}
	}
}

// A pause in the schedule (a stage at rate 0) brings the longest quantum
// back at once: the next slot after it is not held to the last rate's.
func TestBurstQuantumAfterAPause(t *testing.T) {
	b := NewBurstClock()
	for i := range int64(1000) {
		b.Slot(i * int64(10*time.Microsecond))
	}
	if b.Quantum() != minQuantum {
		t.Fatalf("quantum %d at 100k/s, want %d", b.Quantum(), minQuantum)
	}
	b.Slot(int64(10 * time.Second))
	if q := b.Quantum(); q < maxQuantum/4 {
		t.Errorf("quantum %d ns right after a 10 s pause, want it on its way to %d", q, maxQuantum)
	}
}

// Whatever the slots' spacing, a burst never fires before what it is for
// is due, bursts are at least the quantum of their moment apart, and the
// quantum stays within its bounds.
func TestBurstClockNeverEarly(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		gaps := rapid.SliceOfN(rapid.Int64Range(0, int64(2*time.Millisecond)), 1, 300).Draw(t, "gaps")
		b := NewBurstClock()
		due, now, last := int64(0), int64(0), int64(-1<<62)
		for _, g := range gaps {
			due += g
			b.Slot(due)
			q := b.Quantum()
			if q < minQuantum || q > maxQuantum {
				t.Fatalf("quantum %d out of [%d, %d]", q, minQuantum, maxQuantum)
			}
			now = max(now, b.Wake(due))
			if !b.Fire(now, due, false) {
				t.Fatalf("no burst at the clock's own wake instant %d for %d", now, due)
			}
			if now < due {
				t.Fatalf("burst at %d for a slot due at %d", now, due)
			}
			if b.woke != last && b.woke-last < q {
				t.Fatalf("bursts %d ns apart, quantum %d", b.woke-last, q)
			}
			last = b.woke
		}
	})
}
