package compile

import "fmt"

// A slot stands for a fixed number of rows in the results: an endpoint's
// slot for one, a session's for one per request its steps make (Σ
// repeats, for_each iterations at their most). Every slot present is not
// enough: a refused WebSocket upgrade once wrote its connect row twice,
// 25 rows for 20 requests, and every slot was there. SlotRows counts the
// rows each slot holds and names those that hold another number.

// MaxCountedSlots bounds SlotRows' counters (4 bytes a slot): a shard of
// more slots is not counted slot by slot.
const MaxCountedSlots = 1 << 24

// EntryRows is how many rows a slot of entry e stands for.
func EntryRows(e *Entry) int64 {
	if e.Scenario || e.WebSocket {
		return SessionRows(e)
	}
	return 1
}

// SlotRows counts the rows of one shard of a schedule's results, slot by
// slot.
type SlotRows struct {
	s             *Schedule
	index, shards uint64
	counts        []uint32
	beyond        bool // a slot past the counters: another check's to say
}

// NewSlotRows counts rows of shard index of shards (0 of 1: unsharded).
// It returns nil when the shard holds more slots than it counts.
func NewSlotRows(s *Schedule, index, shards int) *SlotRows {
	c := &SlotRows{s: s, index: uint64(max(index, 0)), shards: uint64(max(shards, 1))}
	n := int64(0)
	if s.Model == Open {
		n = (s.Count + int64(c.shards) - 1) / int64(c.shards)
	}
	if n > MaxCountedSlots {
		return nil
	}
	c.counts = make([]uint32, n)
	return c
}

// Add counts a batch's rows by their slots.
func (c *SlotRows) Add(slots []uint64) {
	for _, k := range slots {
		if k%c.shards != c.index {
			continue // outside the shard: the presence check names it
		}
		i := k / c.shards
		if i >= uint64(len(c.counts)) {
			if c.s.Model == Open || i >= MaxCountedSlots {
				c.beyond = true
				continue
			}
			c.counts = append(c.counts, make([]uint32, int(i)+1-len(c.counts))...) // the closed model's slots come as they ran
		}
		if c.counts[i] < ^uint32(0) {
			c.counts[i]++
		}
	}
}

// SlotMismatch is a slot holding another number of rows than it stands for.
type SlotMismatch struct {
	Slot       uint64
	Rows, Want int64
	Entry      string // the endpoint or scenario the slot belongs to
}

func (m SlotMismatch) String() string {
	return fmt.Sprintf("slot %d: %d rows, %s stands for %d", m.Slot, m.Rows, m.Entry, m.Want)
}

// Mismatches counts the slots holding rows whose number is not the one
// their entry stands for, and returns the first few; err is the schedule's
// slots failing to read. Slots without a row are left to the presence
// check.
func (c *SlotRows) Mismatches(first int) (n int64, out []SlotMismatch, err error) {
	check := func(i uint64, entry int) {
		got := int64(c.counts[i])
		if got == 0 || entry < 0 || entry >= len(c.s.Entries) {
			return
		}
		e := &c.s.Entries[entry]
		if want := EntryRows(e); got != want {
			n++
			if len(out) < first {
				out = append(out, SlotMismatch{Slot: i*c.shards + c.index, Rows: got, Want: want, Entry: e.Name})
			}
		}
	}
	if c.s.Model == Closed {
		pick := c.s.Picker()
		for i := range c.counts {
			check(uint64(i), pick(uint64(i)*c.shards+c.index))
		}
		return n, out, nil
	}
	src := c.s.Slots()
	buf := make([]Slot, 4096)
	var k uint64
	for {
		m := src.Next(buf)
		if m == 0 {
			break
		}
		for _, sl := range buf[:m] {
			if k%c.shards == c.index {
				check(k/c.shards, sl.Entry())
			}
			k++
		}
	}
	return n, out, StreamErr(src)
}
