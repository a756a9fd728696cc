package results

import "math/bits"

// Merge adds o's values to h. A report records each latency once, in its
// endpoint's histogram, and merges those into the run's at the end instead
// of recording every latency twice.
func (h *LatencyHistogram) Merge(o *LatencyHistogram) {
	if o.count == 0 {
		return
	}
	h.min = min(h.min, o.min)
	h.max = max(h.max, o.max)
	var carry uint64
	h.sumLo, carry = bits.Add64(h.sumLo, o.sumLo, 0)
	h.sumHi += o.sumHi + carry
	h.count += o.count
	for i, c := range o.counts {
		h.counts[i] += c
	}
}
