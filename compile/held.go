package compile

// WithSlots makes s stream exactly the given slots instead of generating
// them: for tests and for small schedules held in memory. It sets Count.
func (s *Schedule) WithSlots(slots []Slot) *Schedule {
	s.gen = heldSlots(slots)
	s.stats = nil // counts from Compile's pass no longer describe the stream
	s.Count = int64(len(slots))
	return s
}

type heldSlots []Slot

func (h heldSlots) open() SlotSource { return &heldSource{slots: h} }

type heldSource struct {
	slots []Slot
	next  int
}

func (h *heldSource) Next(dst []Slot) int {
	n := copy(dst, h.slots[h.next:])
	h.next += n
	return n
}
