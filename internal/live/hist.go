package live

import (
	"encoding/binary"
	"encoding/json"
	"math"
	"math/bits"
	"slices"

	"github.com/tressi/tressi/results"
)

// Hist is a latency distribution kept sparse: only the buckets that hold a
// value, in HDR's layout for two significant digits (8 significant bits: a
// value below 256 is exact, a larger one keeps its top 8 bits). That is
// the resolution of the report's per-second series and of its overall
// percentiles, and a second of a run touches a few hundred buckets, so a
// thousand intervals cost a few MB where dense histograms would cost a
// few hundred. Hists merge exactly: merging shards' intervals sums their
// buckets, it never averages percentiles.
type Hist struct {
	// Idx are the non-empty buckets in increasing order, N their counts.
	Idx   []int32 `json:"idx,omitempty"`
	N     []int64 `json:"n,omitempty"`
	Count int64   `json:"count"`
	Min   int64   `json:"min"` // exact, in ns; 0 when empty
	Max   int64   `json:"max"`
	Sum   int64   `json:"sum"` // of the values in ns, for the mean
	// last is the position of the bucket recorded last: the next value
	// of a busy second usually falls in it or next to it.
	last int
	// dense, when set, holds counts by bucket instead of Idx and N: what
	// an interval still filling and a sum over many intervals use, so a
	// value costs an increment, not a search. Seal folds it into packed.
	dense []int64
	// packed, when set, holds the buckets instead of Idx and N: what Seal
	// leaves, uvarint pairs (bucket − the bucket before, count), two to
	// three bytes a bucket where Idx and N take twelve. A second of a busy
	// run fills a few thousand buckets, so a long run's history fits in a
	// few hundred KB. It is never written once made: clones share it.
	packed []byte
}

// Dense makes h count into a dense array from now on (see dense).
func (h *Hist) Dense() {
	if h.dense == nil {
		h.dense = make([]int64, 0, 1<<subBucketLog)
	}
}

// Seal leaves dense mode and packs the buckets (see packed): a hist that
// will not change again.
func (h *Hist) Seal() {
	if h.packed != nil && h.dense == nil {
		return
	}
	buf := h.packedBuckets()
	h.dense, h.Idx, h.N, h.last = nil, nil, nil, 0
	h.packed = buf
}

// packedBuckets is h's buckets in packed's form, in a slice of exactly
// their size: the bytes are kept as long as the run's history.
func (h *Hist) packedBuckets() []byte {
	size, prev := 0, int32(0)
	h.Each(func(i int32, n int64) {
		size += uvarintLen(uint64(i-prev)) + uvarintLen(uint64(n))
		prev = i
	})
	buf := make([]byte, 0, size)
	prev = 0
	h.Each(func(i int32, n int64) {
		buf = binary.AppendUvarint(buf, uint64(i-prev))
		buf = binary.AppendUvarint(buf, uint64(n))
		prev = i
	})
	return buf
}

func uvarintLen(v uint64) int { return (bits.Len64(v|1) + 6) / 7 }

// unpack turns packed back into Idx and N, for a sealed hist that changes
// again (an interval merged into a wider one); packed itself stays as it
// was, for the clones that share it.
func (h *Hist) unpack() {
	if h.packed == nil {
		return
	}
	p := h.packed
	h.packed = nil
	h.eachPacked(p, func(i int32, n int64) {
		h.Idx = append(h.Idx, i)
		h.N = append(h.N, n)
	})
}

func (h *Hist) eachPacked(p []byte, fn func(i int32, n int64)) {
	i := int32(0)
	for len(p) > 0 {
		d, k := binary.Uvarint(p)
		n, m := binary.Uvarint(p[k:])
		p = p[k+m:]
		i += int32(d)
		fn(i, int64(n))
	}
}

func (h *Hist) addDense(i int32, n int64) {
	if int(i) >= len(h.dense) {
		h.dense = append(h.dense, make([]int64, int(i)+1-len(h.dense))...)
	}
	h.dense[i] += n
}

// Each calls fn with every non-empty bucket in increasing order, whether
// h is sparse, dense, or both (a sealed hist that was dense again).
func (h *Hist) Each(fn func(i int32, n int64)) {
	if h.packed != nil {
		if h.dense == nil {
			h.eachPacked(h.packed, fn)
			return
		}
		h.unpack()
	}
	k := 0
	for i, n := range h.dense {
		for ; k < len(h.Idx) && h.Idx[k] < int32(i); k++ {
			fn(h.Idx[k], h.N[k])
		}
		if k < len(h.Idx) && h.Idx[k] == int32(i) {
			n += h.N[k]
			k++
		}
		if n > 0 {
			fn(int32(i), n)
		}
	}
	for ; k < len(h.Idx); k++ {
		fn(h.Idx[k], h.N[k])
	}
}

// histHighest is the largest value resolved (an hour), as the report's.
const histHighest = int64(3600e9)

const subBucketLog = 8

// bucketOf is v's bucket: bucket b (bit length b+8) at a resolution of
// 2^b, numbered as HDR numbers its counts.
func bucketOf(v int64) int32 {
	v = min(max(v, 0), histHighest)
	b := bits.Len64(uint64(v)|(1<<subBucketLog-1)) - subBucketLog
	return int32(b<<(subBucketLog-1) + int(v>>b))
}

// UpperEdge is the largest value bucket i holds: what a quantile reports,
// as the report's histograms do.
func UpperEdge(i int32) int64 {
	if i < 1<<subBucketLog {
		return int64(i)
	}
	b := int(i>>(subBucketLog-1)) - 1
	sub := int64(i) - int64(b)<<(subBucketLog-1)
	return (sub+1)<<b - 1
}

// Record adds one value in ns.
func (h *Hist) Record(v int64) {
	if h.dense != nil {
		h.addDense(bucketOf(v), 1)
	} else {
		h.add(bucketOf(v), 1)
	}
	if h.Count == 0 || v < h.Min {
		h.Min = v
	}
	h.Max = max(h.Max, v)
	h.Count++
	h.Sum += v
}

func (h *Hist) add(i int32, n int64) {
	h.unpack()
	if p := h.last; p < len(h.Idx) && h.Idx[p] == i {
		h.N[p] += n
		return
	}
	p, found := slices.BinarySearch(h.Idx, i)
	if !found {
		h.Idx = slices.Insert(h.Idx, p, i)
		h.N = slices.Insert(h.N, p, 0)
	}
	h.N[p] += n
	h.last = p
}

// Merge adds o's values to h.
func (h *Hist) Merge(o *Hist) {
	if o.Count == 0 {
		return
	}
	if h.dense != nil {
		o.Each(h.addDense)
	} else {
		o.Each(h.add)
	}
	if h.Count == 0 || o.Min < h.Min {
		h.Min = o.Min
	}
	h.Max = max(h.Max, o.Max)
	h.Count += o.Count
	h.Sum += o.Sum
}

// Clone is a sealed copy of h: packed, so the history a view keeps of
// published intervals costs what the aggregator's sealed ones do, and
// sharing h's packed buckets where h has them (nothing writes them).
func (h *Hist) Clone() Hist {
	c := Hist{Count: h.Count, Min: h.Min, Max: h.Max, Sum: h.Sum}
	if h.packed != nil && h.dense == nil {
		c.packed = h.packed
		return c
	}
	c.packed = h.packedBuckets()
	return c
}

// Quantile is the nearest-rank value at q (0–1): the upper edge of the
// bucket holding the ceil(q·n)-th smallest value, as the report's
// per-second series computes it. 0 when empty.
func (h *Hist) Quantile(q float64) int64 {
	if h.Count == 0 {
		return 0
	}
	rank := max(int64(math.Ceil(q*float64(h.Count))), 1)
	var seen int64
	at, last := int64(-1), int32(0)
	h.Each(func(i int32, n int64) {
		seen += n
		last = i
		if at < 0 && seen >= rank {
			at = UpperEdge(i)
		}
	})
	if at < 0 {
		return UpperEdge(last)
	}
	return at
}

// Percentiles is the distribution as the report's latency_ms gives it:
// quantiles clamped to the exact minimum and maximum, in ms.
func (h *Hist) Percentiles() Percentiles {
	if h.Count == 0 {
		return Percentiles{}
	}
	at := func(q float64) float64 { return ms(min(max(h.Quantile(q), h.Min), h.Max)) }
	return Percentiles{Count: h.Count, Min: ms(h.Min), Mean: float64(h.Sum) / float64(h.Count) / 1e6,
		P50: at(0.50), P90: at(0.90), P95: at(0.95), P99: at(0.99), P999: at(0.999), Max: ms(h.Max)}
}

// Percentiles summarises a distribution in ms: the report's own type, so
// the live view and the report print the same keys.
type Percentiles = results.Percentiles

func ms(ns int64) float64 { return float64(ns) / 1e6 }

// MarshalJSON writes the buckets as idx and n whatever h keeps them in,
// so the dashboard and tressi watch read one form.
func (h Hist) MarshalJSON() ([]byte, error) {
	type plain Hist // without this method
	p := plain(h)
	if h.packed != nil || h.dense != nil {
		p.Idx, p.N = nil, nil
		h.Each(func(i int32, n int64) {
			p.Idx = append(p.Idx, i)
			p.N = append(p.N, n)
		})
	}
	return json.Marshal(p)
}
