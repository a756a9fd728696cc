package report

import (
	"math"
	"math/bits"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
)

// Percentiles summarises one latency distribution in milliseconds. Min, max
// and mean are exact; the quantiles are within 1% relative error.
type Percentiles struct {
	Count int64   `json:"count"`
	Min   float64 `json:"min"`
	Mean  float64 `json:"mean"`
	P50   float64 `json:"p50"`
	P90   float64 `json:"p90"`
	P95   float64 `json:"p95"`
	P99   float64 `json:"p99"`
	P999  float64 `json:"p999"`
	Max   float64 `json:"max"`
}

// quantiles are the percentiles every distribution reports, in Percentiles' order.
var quantiles = []float64{50, 90, 95, 99, 99.9}

// latencyHistogram records nanosecond latencies. The HDR histogram gives
// quantiles within 1% (two significant digits); min, max and the sum are kept
// exactly beside it, because they cost one comparison each.
type latencyHistogram struct {
	hdr      *hdrhistogram.Histogram
	min, max int64
	// sumHi:sumLo is a 128-bit sum: an int64 overflows after 2.5M hour-long
	// latencies, and a float64 sum would round.
	sumHi, sumLo uint64
	count        int64
}

// hdrHighest is the largest latency the HDR histogram resolves (one hour);
// longer ones are clamped there for quantiles but still count exactly in
// min, max and mean.
const hdrHighest = int64(3600e9)

func newLatencyHistogram() *latencyHistogram {
	return &latencyHistogram{hdr: hdrhistogram.New(1, hdrHighest, 2), min: math.MaxInt64}
}

// record adds one latency in ns; callers skip negative ones (no response).
func (h *latencyHistogram) record(v int64) {
	if v < h.min {
		h.min = v
	}
	if v > h.max {
		h.max = v
	}
	var carry uint64
	h.sumLo, carry = bits.Add64(h.sumLo, uint64(v), 0)
	h.sumHi += carry
	h.count++
	if v > hdrHighest {
		v = hdrHighest
	} else if v < 1 {
		v = 1 // a zero latency happens only with coarse clocks; 1 ns is as good
	}
	_ = h.hdr.RecordValue(v) // in range by construction
}

// percentiles reports the distribution in milliseconds.
func (h *latencyHistogram) percentiles() Percentiles {
	if h.count == 0 {
		return Percentiles{}
	}
	q := h.hdr.ValueAtPercentilesSlice(nearestRanks(quantiles, h.count))
	sum := float64(h.sumHi)*math.Exp2(64) + float64(h.sumLo)
	return Percentiles{
		Count: h.count,
		Min:   ms(h.min),
		Mean:  sum / float64(h.count) / 1e6,
		P50:   ms(min(q[0], h.max)),
		P90:   ms(min(q[1], h.max)),
		P95:   ms(min(q[2], h.max)),
		P99:   ms(min(q[3], h.max)),
		P999:  ms(min(q[4], h.max)),
		Max:   ms(h.max),
	}
}

// nearestRanks turns percentiles into the ones HDR needs to return the
// nearest-rank quantile (the ceil(q·n)-th smallest value, what sorting and
// indexing gives). HDR rounds q·n to the nearest rank instead, which in a
// sparse tail can pick a neighbour several percent away.
func nearestRanks(ps []float64, n int64) []float64 {
	out := make([]float64, len(ps))
	for i, p := range ps {
		rank := math.Ceil(p / 100 * float64(n))
		out[i] = rank / float64(n) * 100
	}
	return out
}

// CDFPoint is one point of a latency distribution: Fraction of requests
// completed within Ms milliseconds.
type CDFPoint struct {
	Fraction float64 `json:"fraction"`
	Ms       float64 `json:"ms"`
}

// cdf samples the distribution at quantiles spaced evenly in "nines", so the
// tail (99%, 99.9%, 99.99%) gets as many points as the body.
func (h *latencyHistogram) cdf() []CDFPoint {
	if h.count == 0 {
		return nil
	}
	var ps []float64
	for i := 0; i <= 40; i++ {
		nines := float64(i) / 10 // 0 .. 4 nines
		ps = append(ps, 100*(1-math.Pow(10, -nines)))
	}
	ps[0] = 0
	vals := h.hdr.ValueAtPercentilesSlice(ps)
	out := make([]CDFPoint, len(ps))
	for i, p := range ps {
		out[i] = CDFPoint{Fraction: p / 100, Ms: ms(min(max(vals[i], h.min), h.max))}
	}
	out[len(out)-1].Fraction = 1
	out[len(out)-1].Ms = ms(h.max)
	return out
}

func ms(ns int64) float64 { return float64(ns) / 1e6 }

// compactHistogram is a log-linear histogram with the same 1/128 resolution
// as the HDR one but uint32 counts allocated per power of two on first use.
// The time series keeps one per second of the run; a dense HDR histogram
// (37 KB each) would make an hour-long run cost 130 MB, this one a few KB a
// second.
type compactHistogram struct {
	blocks [64]*[subBuckets]uint32
	count  uint32
}

const (
	subBucketBits = 7
	subBuckets    = 1 << subBucketBits
)

// slot maps v >= 0 to (power-of-two block, sub-bucket): values below 128 are
// exact, others keep their top 8 bits.
func (h *compactHistogram) slot(v int64) (int, int) {
	u := uint64(v)
	n := bits.Len64(u)
	if n <= subBucketBits {
		return 0, int(u)
	}
	shift := n - subBucketBits - 1
	return shift + 1, int(u>>shift) - subBuckets
}

func (h *compactHistogram) record(v int64) {
	b, s := h.slot(v)
	blk := h.blocks[b]
	if blk == nil {
		blk = new([subBuckets]uint32)
		h.blocks[b] = blk
	}
	blk[s]++
	h.count++
}

// quantile returns the upper edge of the bucket holding the q-th fraction
// (nearest rank), within 1/128 of the true value.
func (h *compactHistogram) quantile(q float64) int64 {
	if h.count == 0 {
		return 0
	}
	rank := uint64(math.Ceil(q * float64(h.count)))
	rank = max(rank, 1)
	var seen uint64
	for b, blk := range h.blocks {
		if blk == nil {
			continue
		}
		for s, c := range blk {
			seen += uint64(c)
			if seen >= rank {
				if b == 0 {
					return int64(s)
				}
				shift := b - 1
				return int64((uint64(s+subBuckets)+1)<<shift) - 1
			}
		}
	}
	return 0
}
