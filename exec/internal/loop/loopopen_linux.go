package loop

import (
	"math"
	"runtime"

	"github.com/tressi/tressi/compile"
	"github.com/tressi/tressi/exec/internal/drive"
	"github.com/tressi/tressi/exec/internal/run"
	"github.com/tressi/tressi/exec/internal/sys"
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
	ex       *run.Executor
}

func (d *openDriver) init(ex *run.Executor, src compile.SlotSource, loop, loops int) {
	d.ex, d.src = ex, src
	d.chunk = make([]compile.Slot, 4096)
	d.loop, d.loops = uint64(loop), uint64(loops)
}

// runOpen sends this loop's slots at their due instants, and sessions'
// next requests once ready, in bursts at most one quantum apart (the
// quantum follows the loop's rate, see drive.burstClock): a
// session's next step waits for the next burst like a new slot does, so
// the loop wakes once per quantum, not once per response (the responses
// carry the kernel's arrival stamps, so their latency and the instant the
// next step became ready are exact; the wait shows as send lag).
func (l *evloop) runOpen() {
	defer l.finish()
	runtime.LockOSThread() // the thread is the loop's for the run (see loopSlice)
	defer runtime.UnlockOSThread()
	defer sys.LatencySlice(loopSlice)()
	d := &l.open
	d.advance()
	burst := drive.NewBurstClock()
	for {
		l.now = l.ex.Clock.Now()
		stopping := l.ex.Stopping()
		if burst.Fire(l.now, l.nextDue(), stopping) {
			if l.ws != nil {
				l.ws.begin(l.now)
			}
			l.fireTimers()
			for d.hasNext && (stopping || d.nextSlot.Due() <= l.now) {
				e, due := d.nextSlot.Entry(), d.nextSlot.Due()
				burst.Slot(due)
				switch {
				case l.ws != nil && l.ex.S.Entries[e].WebSocket:
					l.ws.slot(d.nextK, e, due, stopping)
				case stopping:
					l.sink.NotSent(d.nextK, e, due)
				case l.ex.Scen.Entry(e) != nil:
					l.startSession(d.nextK, e, -1, due, math.MaxInt64)
				default:
					l.dispatch(ljob{k: d.nextK, entry: int32(e), user: -1, pr: l.entryRequest(e), sched: due, ready: l.now})
				}
				d.advance()
			}
			l.fireTimers() // what the slots set for now (a dial refused at once)
		}
		if !d.hasNext && l.busy == 0 && l.queued == 0 && l.liveSessions == 0 && (l.ws == nil || l.ws.idle()) {
			return
		}
		l.poll(burst.Wake(l.nextDue()))
	}
}

// nextDue is the earliest instant something waits for: the next slot or
// timer; -1 when nothing does.
func (l *evloop) nextDue() int64 {
	due := l.nextWake()
	if d := &l.open; d.hasNext && (due < 0 || d.nextSlot.Due() < due) {
		due = d.nextSlot.Due()
	}
	return due
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
		if !d.ex.Shard.Owns(k) {
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
	if err := run.ScheduleEnd(d.ex.S, d.src, d.k, d.srcDone); err != nil {
		d.ex.StreamErr = err
	}
}

func (l *evloop) entryRequest(e int) *run.PreparedRequest {
	return &l.ex.Reqs[l.ex.S.Entries[e].Steps[0].Request]
}
