package compile

// openGen is the open model's generator: arrivals, then selection, then
// rate caps, recomputed for each stream so memory stays flat however many
// slots the schedule holds.
type openGen struct {
	stages  []stage
	total   float64
	poisson bool
	seed    uint64
	sel     *selector
	caps    *rateCaps
}

func (g *openGen) open() SlotSource {
	return &openStream{g: g, arr: newArrivals(g.stages, g.total, g.poisson, g.seed), caps: g.caps.clone()}
}

// openStream is one pass over an open schedule.
type openStream struct {
	g    *openGen
	arr  arrivals
	caps *rateCaps
	cand uint64 // selections made so far, dropped slots included
}

// Next fills dst with the next slots in due order.
func (s *openStream) Next(dst []Slot) int {
	n := 0
	for n < len(dst) {
		due, ok := s.arr.nextDue()
		if !ok {
			break
		}
		e := s.g.sel.pick(s.cand)
		s.cand++
		if s.caps != nil && !s.caps.allow(e, due) {
			continue
		}
		dst[n] = MakeSlot(due, e)
		n++
	}
	return n
}

// noSlots is the closed model's generator: it has no precomputed slots.
type noSlots struct{}

func (noSlots) open() SlotSource { return noSlots{} }

// Next reports that there are no slots.
func (noSlots) Next([]Slot) int { return 0 }
