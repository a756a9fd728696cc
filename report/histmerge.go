package report

import "math/bits"

// merge adds o's values to h: the whole run's latencies are the sum of its
// endpoints', so the single pass records each latency once (per endpoint)
// instead of twice, and the run's histogram is merged at the end.
func (h *latencyHistogram) merge(o *latencyHistogram) {
	if o.count == 0 {
		return
	}
	h.min = min(h.min, o.min)
	h.max = max(h.max, o.max)
	var carry uint64
	h.sumLo, carry = bits.Add64(h.sumLo, o.sumLo, 0)
	h.sumHi += o.sumHi + carry
	h.count += o.count
	h.hdr.Merge(o.hdr)
}
