package fast

import (
	"runtime"
	"time"

	"github.com/tressi/tressi/compile"
	"github.com/tressi/tressi/exec/internal/drive"
	"github.com/tressi/tressi/exec/internal/run"
	"github.com/tressi/tressi/exec/internal/sys"
)

// pacer is the open model's single clock owner: it streams the shard's slots
// from the schedule and releases each to the workers when it is due. One
// goroutine sleeping between due instants replaces a timer and a spin per
// worker: at high rates most wake-ups release several slots at once, with
// one clock read for all of them.
type pacer struct {
	ex    *run.Executor
	ring  *drive.SlotRing
	src   compile.SlotSource
	timer *time.Timer
	alarm *sys.Alarm
}

const (
	// spinBelow is the wait under which the pacer yields instead of arming
	// its timer: a timer wake-up costs about as much as a few yields.
	spinBelow = 20 * time.Microsecond
	// pokeEvery is how often a pacer with long waits asks parked workers to
	// flush, so a slow run still reaches the file (and the live figures).
	pokeEvery = int64(time.Second)
	// alarmBelow is the wait under which the pacer also arms its alarm:
	// longer waits are wholly late by the runtime's millisecond at most.
	alarmBelow = 5 * time.Millisecond
)

// run releases every slot of the shard, then marks the stream exhausted.
// After a stop it releases the rest at once: the workers record them as not
// sent, so every slot still ends with exactly one row.
func (p *pacer) run() {
	chunk := make([]compile.Slot, 4096)
	var k, i uint64         // k: position in the schedule; i: position in the ring
	now := p.ex.Clock.Now() // negative until a --start-at instant
	poked, burst := now, drive.NewBurstClock()
	for {
		n := p.src.Next(chunk)
		if n == 0 {
			break
		}
		for _, s := range chunk[:n] {
			if p.ex.Shard.Owns(k) {
				due := s.Due()
				burst.Slot(due)
				if due > now && !p.ex.Stopping() {
					// At most one wake-up per quantum: the slots due
					// meanwhile go out together, a little late.
					now = p.waitUntil(burst.Take(due), i, &poked)
				}
				p.ring.Release(i, k, s)
				i++
			}
			k++
		}
	}
	if err := run.ScheduleEnd(p.ex.S, p.src, k, true); err != nil {
		p.ex.StreamErr = err
	}
	p.ring.Finish(i)
	p.alarm.Close()
}

// waitUntil returns once due has come (or the run stops) with the clock's
// reading then. i is the next ring index to release: the workers parked
// beyond it are poked to flush during long waits.
func (p *pacer) waitUntil(due int64, i uint64, poked *int64) int64 {
	ex := p.ex
	for {
		now := ex.Clock.Now()
		d := time.Duration(due - now)
		if d <= 0 {
			return now
		}
		if now-*poked >= pokeEvery {
			*poked = now
			p.ring.WakeParked(i)
		}
		if d < spinBelow {
			runtime.Gosched()
			continue
		}
		d = min(d, time.Duration(pokeEvery))
		p.timer.Reset(d)
		if d < alarmBelow {
			p.alarm.Set(d)
		}
		select {
		case <-p.timer.C:
		case <-ex.StopCh:
			p.timer.Stop()
			return now
		}
	}
}
