package compile

import (
	"time"

	"github.com/tressi/tressi/plan"
)

// An entry's max_rate in the open model is decided here, at compile time,
// so it costs the executor nothing. Where the entry's offered rate (its
// selection share of the stage rate) stays under its cap, it keeps the
// slots selection gives it. Where the offered rate exceeds the cap, the
// selection's picks of the entry are dropped and the entry gets its own
// arrivals at exactly the cap instead (uniform or poisson, as the load
// says), merged into the stream in due order. So a capped entry sends
// ∫ min(offered, cap) dt, exactly, any one-second window holds at most
// ⌊cap⌋ + 1 of its sends (+1 where the cap starts to bind), and the other
// entries keep their own schedule. Dropping picks alone, the first design,
// delivered as little as 62% of the cap: selection's irregular spacing
// wastes tokens.

// capPlan is one capped entry's part of the open schedule.
type capPlan struct {
	entry  int
	binds  [][2]int64 // [from, to) ns where the cap binds: selection's picks are dropped
	stages []stage    // the entry's own arrivals: the cap where it binds, 0 elsewhere
	total  float64
}

// newCapPlans lays out where each capped entry's cap binds. share is the
// entry's expected fraction of the selections.
func newCapPlans(ps []plan.Stage, entries []Entry, share func(int) float64) []capPlan {
	var plans []capPlan
	for e := range entries {
		c := entries[e].MaxRate
		p := share(e)
		if c <= 0 || p <= 0 {
			continue
		}
		cp := capPlan{entry: e}
		own := make([]plan.Stage, 0, len(ps))
		var start int64
		for _, st := range ps {
			for _, piece := range bindingPieces(st, p, c) {
				rate := 0.0
				if piece.binds {
					rate = c
					from := start + piece.from
					cp.binds = append(cp.binds, [2]int64{from, from + piece.length})
				}
				own = append(own, plan.Stage{Duration: time.Duration(piece.length), From: rate, To: rate})
			}
			start += int64(st.Duration)
		}
		if len(cp.binds) == 0 {
			continue
		}
		cp.stages, cp.total = makeStages(own)
		plans = append(plans, cp)
	}
	return plans
}

type piece struct {
	from, length int64
	binds        bool
}

// bindingPieces splits a stage where the offered rate p·r(t) crosses the
// cap c: at most two pieces, since r is linear within a stage.
func bindingPieces(st plan.Stage, p, c float64) []piece {
	d := int64(st.Duration)
	a, b := p*st.From, p*st.To
	switch {
	case a <= c && b <= c:
		return []piece{{0, d, false}}
	case a > c && b > c:
		return []piece{{0, d, true}}
	}
	cross := int64((c - a) / (b - a) * float64(d)) // where p·r(t) = c
	cross = min(max(cross, 0), d)
	first := a > c // ramping down through the cap: binds first
	return []piece{{0, cross, first}, {cross, d - cross, !first}}
}

// capStream is one pass over a capped entry's own arrivals.
type capStream struct {
	plan *capPlan
	arr  arrivals
	next int64 // due of the next own arrival, valid when ok
	ok   bool
	w    int // index of the first bind window not yet behind the stream
}

func (c *capStream) advance() { c.next, c.ok = c.arr.nextDue() }

// drops reports whether the selection's pick of the entry at due falls
// where the cap binds. Dues only grow, so the window index only advances.
func (c *capStream) drops(due int64) bool {
	b := c.plan.binds
	for c.w < len(b) && b[c.w][1] <= due {
		c.w++
	}
	return c.w < len(b) && due >= b[c.w][0]
}

// saltCap separates each capped entry's poisson stream from the others.
const saltCap = 0x636170

func openCapStreams(plans []capPlan, poisson bool, seed uint64) ([]capStream, []int) {
	if len(plans) == 0 {
		return nil, nil
	}
	streams := make([]capStream, len(plans))
	n := 0
	for i := range plans {
		n = max(n, plans[i].entry+1)
	}
	byEntry := make([]int, n)
	for i := range byEntry {
		byEntry[i] = -1
	}
	for i := range plans {
		cp := &plans[i]
		streams[i] = capStream{plan: cp, arr: newArrivals(cp.stages, cp.total, poisson, mix(seed, uint64(cp.entry), saltCap))}
		streams[i].advance()
		byEntry[cp.entry] = i
	}
	return streams, byEntry
}
