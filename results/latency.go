package results

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

// LatencyHistogram records nanosecond latencies. The HDR histogram gives
// quantiles within 1% (two significant digits); min, max and the sum are kept
// exactly beside it, because they cost one comparison each. The executor's
// verdict and the report read latency through it, so both judge a
// threshold on the same figure.
//
// Recording is the hot loop of every report, so the histogram counts into
// HDR's own bucket layout itself (hdrIndex), a few instructions a value,
// and hands the counts to hdrhistogram-go (Import) only to answer
// quantiles: the figures are HDR's, bit for bit.
type LatencyHistogram struct {
	counts   []int64 // HDR's counts array for (1, hdrHighest, 2 digits)
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

// HDR's layout for 2 significant digits from 1 ns: buckets of 256
// sub-buckets, the upper 128 of each used above bucket 0, bucket b holding
// values of bit length b+8 at a resolution of 2^b.
const (
	hdrDigits       = 2
	hdrSubBucketLog = 8 // log2 of the 256 sub-buckets 2 digits need (2·10² ≤ 256)
)

// hdrCounts is the length of HDR's counts array for the layout.
var hdrCounts = len(hdrhistogram.New(1, hdrHighest, hdrDigits).Export().Counts)

// hdrIndex is HDR's counts index of v (1 ≤ v ≤ hdrHighest): its
// getBucketIndex, getSubBucketIdx and countsIndex folded together.
func hdrIndex(v int64) int {
	b := bits.Len64(uint64(v)|(1<<hdrSubBucketLog-1)) - hdrSubBucketLog
	return b<<(hdrSubBucketLog-1) + int(v>>b)
}

// NewLatencyHistogram returns an empty histogram.
func NewLatencyHistogram() *LatencyHistogram {
	return &LatencyHistogram{counts: make([]int64, hdrCounts), min: math.MaxInt64}
}

// hdr is the histogram as hdrhistogram-go's, for its quantiles.
func (h *LatencyHistogram) hdr() *hdrhistogram.Histogram {
	return hdrhistogram.Import(&hdrhistogram.Snapshot{LowestTrackableValue: 1, HighestTrackableValue: hdrHighest,
		SignificantFigures: hdrDigits, Counts: h.counts})
}

// Record adds one latency in ns; callers skip negative ones (no response).
// It is small enough to be inlined into the report's loop.
func (h *LatencyHistogram) Record(v int64) {
	h.min = min(h.min, v)
	h.max = max(h.max, v)
	var carry uint64
	h.sumLo, carry = bits.Add64(h.sumLo, uint64(v), 0)
	h.sumHi += carry
	h.count++
	// Beyond an hour, quantiles clamp; a zero latency happens only with
	// coarse clocks, and 1 ns is as good.
	h.counts[hdrIndex(min(max(v, 1), hdrHighest))]++
}

// Count is how many latencies were recorded.
func (h *LatencyHistogram) Count() int64 { return h.count }

// Percentiles reports the distribution in milliseconds.
func (h *LatencyHistogram) Percentiles() Percentiles {
	if h.count == 0 {
		return Percentiles{}
	}
	q := h.hdr().ValueAtPercentilesSlice(nearestRanks(quantiles, h.count))
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

// At returns the nearest-rank latency at each of ps (percentiles, 0–100),
// clamped to the recorded minimum and maximum, in ns.
func (h *LatencyHistogram) At(ps []float64) []int64 {
	vals := h.hdr().ValueAtPercentilesSlice(ps)
	for i := range vals {
		vals[i] = min(max(vals[i], h.min), h.max)
	}
	return vals
}

// Min and Max are the exact extremes, in ns.
func (h *LatencyHistogram) Min() int64 { return h.min }
func (h *LatencyHistogram) Max() int64 { return h.max }

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

func ms(ns int64) float64 { return float64(ns) / 1e6 }
