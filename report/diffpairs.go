package report

import (
	"errors"
	"fmt"
	stdbits "math/bits"
	"sync"

	"github.com/RoaringBitmap/roaring/v2/roaring64"

	"github.com/tressi/tressi/results"
)

// slotPairs matches the two runs of a diff slot by slot while both are read
// in step, a page of slots at a time. A page is compared, and freed, as
// soon as both runs have shown every slot it should hold: the pages in
// memory are those the two files' orders (completion order, roughly slot
// order) leave open, not the whole run. A page that never fills (slots
// missing from a run cut short, the closed model's last page, a shard
// side) is compared at the end, so the result is exact either way.
//
// It serves runs with one row per slot (no scenarios): a slot is then
// complete at its first row.
type slotPairs struct {
	pages  map[uint64]*pairPage
	closed *roaring64.Bitmap // pages compared and freed
	want   [2]pageWant
	factor float64
	// late counts rows that arrived for a page already compared: a slot
	// with a second row, which runs without scenarios do not have (the
	// diff is then made again the other way, see BuildDiffShards).
	late int64
	// mostOpen is the most pages held at once (tests check it stays small).
	mostOpen int
	// ended says a run has no more rows: its pages are as full as they
	// will get.
	ended [2]bool
}

// pairBits is log2 of the slots in a page: 64Ki slots, about 1 MB a page
// (tests make pages smaller to count them).
var pairBits = slotPageBits

// pairPage is one page of slots: each run's slowest ok latency (µs + 1, 0
// for none), the endpoint of B's, and which slots each run has shown.
type pairPage struct {
	lat  [2][]uint32
	epB  []*epDiff
	seen [2][]uint64 // bitsets
	n    [2]int      // slots shown
	want [2]int      // slots each run should show (pageWant)
}

// pageWant is how many slots of a page one run should hold: its stripe's
// slots below the schedule's slot count, when that is known.
type pageWant struct {
	shard results.Shard
	slots int64 // 0: unknown (the closed model)
}

func (w pageWant) of(page uint64) int {
	lo := page << pairBits
	hi := lo + 1<<pairBits
	if w.slots > 0 {
		hi = min(hi, uint64(w.slots))
	}
	if hi <= lo {
		return 0
	}
	if w.shard.Count <= 1 {
		return int(hi - lo)
	}
	return int(stripeBelow(hi, w.shard) - stripeBelow(lo, w.shard))
}

// stripeBelow counts the slots below x the shard owns.
func stripeBelow(x uint64, s results.Shard) uint64 {
	i, n := uint64(s.Index), uint64(s.Count)
	if x <= i {
		return 0
	}
	return (x-1-i)/n + 1
}

func newSlotPairs(a, b results.Meta, factor float64) *slotPairs {
	return &slotPairs{
		pages: map[uint64]*pairPage{}, closed: roaring64.New(), factor: factor,
		want: [2]pageWant{{a.Shard, a.Slots}, {b.Shard, b.Slots}},
	}
}

func (p *slotPairs) page(n uint64) *pairPage {
	pg := p.pages[n]
	if pg == nil {
		pg = &pairPage{epB: make([]*epDiff, 1<<pairBits), want: [2]int{p.want[0].of(n), p.want[1].of(n)}}
		for i := range 2 {
			pg.lat[i] = make([]uint32, 1<<pairBits)
			pg.seen[i] = make([]uint64, 1<<pairBits/64)
		}
		p.pages[n] = pg
		p.mostOpen = max(p.mostOpen, len(p.pages))
	}
	return pg
}

// add takes one batch of run side (0: A, 1: B): its ok rows' latencies,
// then every slot it shows, closing the pages that are then complete.
func (p *slotPairs) add(side int, slots []uint64, contiguous bool, ok []okRow) {
	var cur *pairPage
	curN := ^uint64(0)
	for _, o := range ok {
		if n := o.slot >> pairBits; n != curN {
			if p.closed.Contains(n) {
				p.late++
				continue
			}
			cur, curN = p.page(n), n
		}
		i := o.slot & (1<<pairBits - 1)
		if o.us > cur.lat[side][i] {
			cur.lat[side][i] = o.us
			if side == 1 {
				cur.epB[i] = o.ep
			}
		}
	}
	if contiguous {
		p.markRange(side, slots[0], slots[len(slots)-1]+1)
		return
	}
	curN = ^uint64(0)
	for _, s := range slots {
		n := s >> pairBits
		if n != curN {
			if p.closed.Contains(n) {
				p.late++
				continue
			}
			cur, curN = p.page(n), n
		}
		i := s & (1<<pairBits - 1)
		if w := &cur.seen[side][i/64]; *w&(1<<(i%64)) == 0 {
			*w |= 1 << (i % 64)
			cur.n[side]++
			if p.full(n, cur, side) {
				curN = ^uint64(0)
			}
		}
	}
}

// markRange shows slots lo..hi-1 of run side, a word of the bitset at a time.
func (p *slotPairs) markRange(side int, lo, hi uint64) {
	for lo < hi {
		n := lo >> pairBits
		end := min(hi, (n+1)<<pairBits)
		if p.closed.Contains(n) {
			p.late += int64(end - lo)
			lo = end
			continue
		}
		pg := p.page(n)
		seen := pg.seen[side]
		for i := lo & (1<<pairBits - 1); lo < end; {
			w := i / 64
			bits := min(64-i%64, end-lo)
			mask := (^uint64(0) >> (64 - bits)) << (i % 64)
			pg.n[side] += stdbits.OnesCount64(mask &^ seen[w])
			seen[w] |= mask
			i += bits
			lo += bits
		}
		p.full(n, pg, side)
	}
}

// full compares page n if both runs have now shown all they will of it.
func (p *slotPairs) full(n uint64, pg *pairPage, side int) bool {
	if pg.n[side] == pg.want[side] && (p.ended[1-side] || pg.n[1-side] == pg.want[1-side]) {
		p.compare(n)
		return true
	}
	return false
}

// end says run side has no more rows: the pages the other run has
// completed are compared now.
func (p *slotPairs) end(side int) {
	p.ended[side] = true
	for n, pg := range p.pages {
		if p.ended[1-side] || pg.n[1-side] == pg.want[1-side] {
			p.compare(n)
		}
	}
}

// compare counts page n's slots ok in both runs, and those slower in B by
// more than the factor, for B's endpoints; then frees the page.
func (p *slotPairs) compare(n uint64) {
	pg := p.pages[n]
	for i, b := range pg.lat[1] {
		a := pg.lat[0][i]
		if a == 0 || b == 0 {
			continue
		}
		ep := pg.epB[i]
		ep.compared++
		if float64(b) > p.factor*float64(a) {
			ep.slower++
		}
	}
	delete(p.pages, n)
	p.closed.Add(n)
}

// finish compares the pages still open.
func (p *slotPairs) finish() {
	for n := range p.pages {
		p.compare(n)
	}
}

// errLateRows says a run has slots with several rows after all: pairing
// slots a page at a time cannot be exact, so the diff reads A whole and
// then B instead.
var errLateRows = errors.New("a slot with several rows")

// lastPairs is the slotPairs of the last lockstep diff, for tests.
var lastPairs *slotPairs

// lockstepDiff reads run a and run b (one input each, one schedule, no
// scenarios) in step, pairing their slots a page at a time (slotPairs),
// instead of holding every slot of a until b is read.
func lockstepDiff(pathA, pathB string, a, b Input, factor float64) (*sideTally, *sideTally, error) {
	sides := [2]*sideTally{newSideTally(pathA), newSideTally(pathB)}
	inputs := [2][]Input{{a}, {b}}
	var readers [2]*results.Reader
	defer func() {
		for _, r := range readers {
			if r != nil {
				r.Close()
			}
		}
	}()
	for i := range 2 {
		r, err := sides[i].open(0, inputs[i])
		if err != nil {
			return nil, nil, err
		}
		readers[i] = r
	}
	pairs := newSlotPairs(readers[0].Meta, readers[1].Meta, factor)
	lastPairs = pairs
	readInStep(readers, sides, pairs)
	for i := range 2 {
		if err := sides[i].finishInput(readers[i], inputs[i][0]); err != nil {
			return nil, nil, err
		}
		if err := sides[i].finish(inputs[i]); err != nil {
			return nil, nil, err
		}
	}
	pairs.finish()
	if pairs.late > 0 {
		return nil, nil, fmt.Errorf("%w: %d rows came for slots already compared", errLateRows, pairs.late)
	}
	return sides[0], sides[1], nil
}

// readInStep reads both runs at once, each on a goroutine of its own that
// tallies its side, and pairs their slots under one lock. A run ahead in
// rows waits for the other to catch up, as the run behind read next when
// one goroutine read both: both move through the schedule together and
// few pages stay open, and they tally at once while they are level.
func readInStep(readers [2]*results.Reader, sides [2]*sideTally, pairs *slotPairs) {
	var mu sync.Mutex
	moved := sync.NewCond(&mu)
	var rows [2]int64
	var ended [2]bool
	var wg sync.WaitGroup
	for i := range 2 {
		wg.Go(func() {
			defer func() {
				mu.Lock()
				ended[i] = true
				pairs.end(i)
				moved.Broadcast()
				mu.Unlock()
			}()
			for {
				mu.Lock()
				for !ended[1-i] && rows[i] > rows[1-i] {
					moved.Wait()
				}
				mu.Unlock()
				bt, ok := readers[i].Next()
				if !ok {
					return
				}
				sides[i].batch(bt, readers[i].Meta.Expect)
				mu.Lock()
				pairs.add(i, bt.Slot, sides[i].contiguous, sides[i].ok)
				rows[i] = sides[i].side.Rows
				moved.Broadcast()
				mu.Unlock()
			}
		})
	}
	wg.Wait()
}

// noLockstep makes every diff read A whole, then B (tests compare both ways).
var noLockstep bool

// canLockstep says whether two runs can be read in step: one input each,
// of one schedule, without scenarios (one row per slot).
func canLockstep(a, b []Input) bool {
	if len(a) != 1 || len(b) != 1 || noLockstep {
		return false
	}
	var metas [2]results.Meta
	for i, in := range []Input{a[0], b[0]} {
		r, err := results.Open(in.Results)
		if err != nil {
			return false
		}
		metas[i] = r.Meta
		r.Close()
	}
	return metas[0].ScheduleHash != "" && metas[0].ScheduleHash == metas[1].ScheduleHash &&
		len(metas[0].Scenarios) == 0 && len(metas[1].Scenarios) == 0
}
