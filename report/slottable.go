package report

// slotTable holds a uint32 per slot in pages allocated on first use: a
// diff keeps each slot's latency of run A to compare with run B's. Pages
// cost no copying as the table grows (a growing slice copied it over and
// over, and held old copies until the next GC), and slots that never
// appear (another shard's stripe, a run cut short) cost nothing.
type slotTable struct {
	pages [][]uint32
}

const slotPageBits = 16

// maxAt stores v at slot if it is larger than what is there.
func (t *slotTable) maxAt(slot uint64, v uint32) {
	p := slot >> slotPageBits
	if p >= uint64(len(t.pages)) {
		t.pages = append(t.pages, make([][]uint32, int(p)+1-len(t.pages))...)
	}
	page := t.pages[p]
	if page == nil {
		page = make([]uint32, 1<<slotPageBits)
		t.pages[p] = page
	}
	i := slot & (1<<slotPageBits - 1)
	page[i] = max(page[i], v)
}

// at is the value at slot, 0 when none was stored.
func (t *slotTable) at(slot uint64) uint32 {
	p := slot >> slotPageBits
	if p >= uint64(len(t.pages)) || t.pages[p] == nil {
		return 0
	}
	return t.pages[p][slot&(1<<slotPageBits-1)]
}
