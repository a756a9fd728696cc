package report

import (
	"math"
	"math/bits"

	"github.com/tressi/tressi/results"
)

// Percentiles summarises one latency distribution in milliseconds.
type Percentiles = results.Percentiles

// latencyHistogram is the results' histogram: the run's verdict reads
// latency through the same one.
type latencyHistogram = results.LatencyHistogram

func newLatencyHistogram() *latencyHistogram { return results.NewLatencyHistogram() }

// CDFPoint is one point of a latency distribution: Fraction of requests
// completed within Ms milliseconds.
type CDFPoint struct {
	Fraction float64 `json:"fraction"`
	Ms       float64 `json:"ms"`
}

// cdf samples the distribution at quantiles spaced evenly in "nines", so the
// tail (99%, 99.9%, 99.99%) gets as many points as the body.
func cdf(h *latencyHistogram) []CDFPoint {
	if h.Count() == 0 {
		return nil
	}
	var ps []float64
	for i := 0; i <= 40; i++ {
		nines := float64(i) / 10 // 0 .. 4 nines
		ps = append(ps, 100*(1-math.Pow(10, -nines)))
	}
	ps[0] = 0
	vals := h.At(ps)
	out := make([]CDFPoint, len(ps))
	for i, p := range ps {
		out[i] = CDFPoint{Fraction: p / 100, Ms: ms(vals[i])}
	}
	out[len(out)-1].Fraction = 1
	out[len(out)-1].Ms = ms(h.Max())
	return out
}

func ms(ns int64) float64 { return float64(ns) / 1e6 }

// compactHistogram is a log-linear histogram with the same 1/128 resolution
// as the HDR one but uint32 counts allocated per power of two on first use.
// The time series keeps one per second of the run; a dense HDR histogram
// (37 KB each) would make an hour-long run cost 130 MB, this one a few KB a
// second.
//
// It keeps no count of its own: its owner counts what it records (a
// second's completed requests) and passes that to quantile, so recording
// is one increment.
type compactHistogram struct {
	blocks [64]*[subBuckets]uint32
}

const (
	subBucketBits = 7
	subBuckets    = 1 << subBucketBits
)

// slot maps v >= 0 to (power-of-two block, sub-bucket): values below 128 are
// exact, others keep their top 8 bits.
// Branch-free: a value of n >= 8 bits is shifted right by n-8 into
// [128, 256), which with shift·128 added is block·128 + sub-bucket (the
// same flat index as the HDR histogram's; below 256, shift 0, the value).
func (h *compactHistogram) slot(v int64) (int, int) {
	u := uint64(v)
	shift := bits.Len64(u|(1<<(subBucketBits+1)-1)) - subBucketBits - 1
	flat := shift<<subBucketBits + int(u>>shift)
	return flat >> subBucketBits, flat & (subBuckets - 1)
}

func (h *compactHistogram) record(v int64) {
	b, s := h.slot(v)
	if h.blocks[b] == nil {
		h.block(b)
	}
	h.blocks[b][s]++
}

// block makes block b; apart from record so that record is inlined.
func (h *compactHistogram) block(b int) *[subBuckets]uint32 {
	h.blocks[b] = new([subBuckets]uint32)
	return h.blocks[b]
}

// quantile returns the upper edge of the bucket holding the q-th fraction
// (nearest rank) of the n values recorded, within 1/128 of the true value.
func (h *compactHistogram) quantile(q float64, n int64) int64 {
	if n == 0 {
		return 0
	}
	rank := uint64(math.Ceil(q * float64(n)))
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
