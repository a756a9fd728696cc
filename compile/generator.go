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
	caps    []capPlan
}

func (g *openGen) open() SlotSource {
	s := &openStream{g: g, arr: newArrivals(g.stages, g.total, g.poisson, g.seed)}
	s.caps, s.capOf = openCapStreams(g.caps, g.poisson, g.seed)
	return s
}

// openStream is one pass over an open schedule: the selection's stream
// merged with the capped entries' own streams, in due order.
type openStream struct {
	g     *openGen
	arr   arrivals
	cand  uint64 // selections made so far, dropped ones included
	main  Slot   // the selection stream's next slot, valid when have
	have  bool
	done  bool
	caps  []capStream
	capOf []int // entry → index into caps, -1 when uncapped; entries past its end are uncapped
}

// Next fills dst with the next slots in due order.
func (s *openStream) Next(dst []Slot) int {
	n := 0
	for n < len(dst) {
		if !s.have && !s.done {
			s.fetchMain()
		}
		best := -1 // -1: the selection stream; ties go to it, for a stable order
		var due int64
		if s.have {
			due = s.main.Due()
		}
		for i := range s.caps {
			if c := &s.caps[i]; c.ok && (best == -1 && !s.have || c.next < due) {
				best, due = i, c.next
			}
		}
		switch {
		case best >= 0:
			dst[n] = MakeSlot(due, s.caps[best].plan.entry)
			s.caps[best].advance()
		case s.have:
			dst[n] = s.main
			s.have = false
		default:
			return n
		}
		n++
	}
	return n
}

// fetchMain takes the selection stream's next slot, skipping picks of
// capped entries where their own stream stands in.
func (s *openStream) fetchMain() {
	for {
		due, ok := s.arr.nextDue()
		if !ok {
			s.done = true
			return
		}
		e := s.g.sel.pick(s.cand)
		s.cand++
		if e < len(s.capOf) && s.capOf[e] >= 0 && s.caps[s.capOf[e]].drops(due) {
			continue
		}
		s.main, s.have = MakeSlot(due, e), true
		return
	}
}

// noSlots is the closed model's generator: it has no precomputed slots.
type noSlots struct{}

func (noSlots) open() SlotSource { return noSlots{} }

// Next reports that there are no slots.
func (noSlots) Next([]Slot) int { return 0 }
