package exec

import (
	"math"

	"github.com/tressi/tressi/compile"
)

// openDriver is the open model's part of a loop: the slots this loop
// sends, read from its own pass over the schedule. Of the shard's slots,
// every nth is this loop's.
type openDriver struct {
	src      compile.SlotSource
	chunk    []compile.Slot
	ci, cn   int
	k        uint64 // schedule position of chunk[ci]
	pos      uint64 // position among the shard's slots
	loop     uint64 // this loop's index
	loops    uint64
	nextK    uint64
	nextSlot compile.Slot
	hasNext  bool
	srcDone  bool
	ex       *executor
}

func (d *openDriver) init(ex *executor, src compile.SlotSource, loop, loops int) {
	d.ex, d.src = ex, src
	d.chunk = make([]compile.Slot, 4096)
	d.loop, d.loops = uint64(loop), uint64(loops)
}

// runOpen sends this loop's slots at their due instants, in bursts at
// most one quantum apart.
func (l *evloop) runOpen() {
	defer l.finish()
	d := &l.open
	d.advance()
	woke := int64(-1) << 62 // the intended instant of the last burst
	for {
		l.now = l.ex.clock.now()
		stopping := l.ex.stopping()
		if d.hasNext && (stopping || l.now >= max(d.nextSlot.Due(), woke+burstQuantum)) {
			// Quanta count from the intended bursts, not the actual ones,
			// so late wake-ups do not add up.
			woke = max(d.nextSlot.Due(), woke+burstQuantum)
			for d.hasNext && (stopping || d.nextSlot.Due() <= l.now) {
				e, due := d.nextSlot.Entry(), d.nextSlot.Due()
				switch {
				case stopping:
					l.sink.notSent(d.nextK, e, due)
				case l.ex.scen.entry(e) != nil:
					l.startSession(d.nextK, e, -1, due, math.MaxInt64)
				default:
					l.dispatch(ljob{k: d.nextK, entry: int32(e), user: -1, pr: l.entryRequest(e), sched: due, ready: l.now})
				}
				d.advance()
			}
		}
		l.fireWakes()
		if !d.hasNext && l.busy == 0 && l.queued == 0 && l.liveSessions == 0 {
			return
		}
		wake := l.nextWake()
		if d.hasNext {
			if next := max(d.nextSlot.Due(), woke+burstQuantum); wake < 0 || next < wake {
				wake = next
			}
		}
		l.poll(wake)
	}
}

// advance moves to the next slot this loop owns.
func (d *openDriver) advance() {
	for {
		if d.ci == d.cn {
			if d.srcDone {
				d.hasNext = false
				return
			}
			d.cn, d.ci = d.src.Next(d.chunk), 0
			if d.cn == 0 {
				d.srcDone, d.hasNext = true, false
				return
			}
		}
		s, k := d.chunk[d.ci], d.k
		d.ci++
		d.k++
		if !d.ex.shard.Owns(k) {
			continue
		}
		mine := d.pos%d.loops == d.loop
		d.pos++
		if mine {
			d.nextK, d.nextSlot, d.hasNext = k, s, true
			return
		}
	}
}

// finish reports a schedule that could not be read to its end. Every loop
// reads the whole stream; the first one speaks for all.
func (d *openDriver) finish() {
	if d.src == nil || d.loop != 0 {
		return
	}
	if err := scheduleEnd(d.ex.s, d.src, d.k, d.srcDone); err != nil {
		d.ex.streamErr = err
	}
}

func (l *evloop) entryRequest(e int) *preparedRequest {
	return &l.ex.reqs[l.ex.s.Entries[e].Steps[0].Request]
}
