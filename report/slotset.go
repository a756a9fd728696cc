package report

import (
	"math/bits"
	"slices"

	"github.com/RoaringBitmap/roaring/v2/roaring64"
)

// slotSet gathers the slots a run holds, a bit each in pages of 64Ki
// slots, and hands them over as a roaring bitmap at the end. Rows come in
// completion order, nearly but not quite sorted: a roaring bitmap takes
// such slots one by one at several times the cost of setting a bit, and a
// run holds most slots of its range, where the bits cost what roaring's
// own dense containers do.
type slotSet struct {
	pages   map[uint64]*[1 << slotPageBits / 64]uint64
	last    *[1 << slotPageBits / 64]uint64
	lastKey uint64
}

func newSlotSet() *slotSet {
	return &slotSet{pages: map[uint64]*[1 << slotPageBits / 64]uint64{}, lastKey: ^uint64(0)}
}

// addMany adds slots.
func (s *slotSet) addMany(slots []uint64) {
	for _, slot := range slots {
		if k := slot >> slotPageBits; k != s.lastKey {
			p := s.pages[k]
			if p == nil {
				p = new([1 << slotPageBits / 64]uint64)
				s.pages[k] = p
			}
			s.last, s.lastKey = p, k
		}
		i := slot & (1<<slotPageBits - 1)
		s.last[i/64] |= 1 << (i % 64)
	}
}

// bitmap is the set as a roaring bitmap, built a run of slots at a time.
func (s *slotSet) bitmap() *roaring64.Bitmap {
	out := roaring64.New()
	keys := make([]uint64, 0, len(s.pages))
	for k := range s.pages {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var runStart, runEnd uint64 // the run being built, [start, end); end 0 past the last slot
	open := false
	emit := func() {
		if runEnd == 0 { // the run reaches the largest slot: [start, end) cannot say so
			out.AddRange(runStart, ^uint64(0))
			out.Add(^uint64(0))
			return
		}
		out.AddRange(runStart, runEnd)
	}
	for _, k := range keys {
		base := k << slotPageBits
		for w, word := range s.pages[k] {
			for word != 0 {
				lo := uint64(bits.TrailingZeros64(word))
				ones := uint64(bits.TrailingZeros64(^(word >> lo)))
				start := base + uint64(w)*64 + lo
				if open && start == runEnd {
					runEnd += ones
				} else {
					if open {
						emit()
					}
					runStart, runEnd, open = start, start+ones, true
				}
				if lo+ones >= 64 {
					break
				}
				word &^= (1<<ones - 1) << lo
			}
		}
	}
	if open {
		emit()
	}
	return out
}
