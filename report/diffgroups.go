package report

import (
	"slices"
	"sort"
	"strconv"

	"github.com/RoaringBitmap/roaring/v2/roaring64"
)

// What a slot-by-slot diff reports of its two sides: failed slots in
// groups, and each endpoint's shift.

// contiguous says whether slots climb by one from the first.
func contiguous(slots []uint64) bool {
	for i, s := range slots {
		if s != slots[0]+uint64(i) {
			return false
		}
	}
	return true
}

// slotGroups splits slots by the failure groups of side t, largest first.
func slotGroups(t *sideTally, slots *roaring64.Bitmap) []SlotGroup {
	out := []SlotGroup{}
	for k, g := range t.groups {
		in := roaring64.And(g.slots, slots)
		n := in.GetCardinality()
		if n == 0 {
			continue
		}
		sg := SlotGroup{Endpoint: k.endpoint, Kind: k.kind, Slots: int64(n)}
		if n <= listSlots {
			sg.List = in.ToArray()
		}
		it := in.Iterator()
		for it.HasNext() && len(sg.First) < firstSlots {
			s := it.Next()
			ref := SlotRef{Slot: s}
			if i, ok := slices.BinarySearchFunc(g.first, s, func(r SlotRef, s uint64) int {
				switch {
				case r.Slot < s:
					return -1
				case r.Slot > s:
					return 1
				}
				return 0
			}); ok {
				ref.DueMs = g.first[i].DueMs
			}
			sg.First = append(sg.First, ref)
		}
		out = append(out, sg)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Slots != out[j].Slots {
			return out[i].Slots > out[j].Slots
		}
		if out[i].Endpoint != out[j].Endpoint {
			return out[i].Endpoint < out[j].Endpoint
		}
		return out[i].Kind < out[j].Kind
	})
	return out
}

func endpointShifts(a, b *sideTally) []EndpointShift {
	names := map[string]bool{}
	for n := range a.eps {
		names[n] = true
	}
	for n := range b.eps {
		names[n] = true
	}
	out := []EndpointShift{}
	for n := range names {
		es := EndpointShift{Name: n}
		if e := a.eps[n]; e != nil {
			es.A = e.latency.Percentiles()
		}
		if e := b.eps[n]; e != nil {
			es.B = e.latency.Percentiles()
			es.Compared, es.Slower = e.compared, e.slower
			if e.compared > 0 {
				es.SlowerShare = float64(e.slower) / float64(e.compared)
			}
		}
		out = append(out, es)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// statusKinds are the failure kinds of unexpected statuses, made once.
var statusKinds = func() (k [1000]string) {
	for i := range k {
		k[i] = "status " + strconv.Itoa(i)
	}
	return k
}()

func statusKind(st int) string {
	if st >= 0 && st < len(statusKinds) {
		return statusKinds[st]
	}
	return "status " + strconv.Itoa(st)
}
