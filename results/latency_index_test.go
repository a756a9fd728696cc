package results

import (
	"testing"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
	"pgregory.net/rapid"
)

// TestHDRIndexIsHDRs: the histogram counts each value where hdrhistogram-go
// would, so the quantiles it reports through Import are HDR's own.
func TestHDRIndexIsHDRs(t *testing.T) {
	check := func(t interface{ Fatalf(string, ...any) }, v int64) {
		h := hdrhistogram.New(1, hdrHighest, hdrDigits)
		if err := h.RecordValue(v); err != nil {
			t.Fatalf("%d: %v", v, err)
		}
		counts := h.Export().Counts
		if len(counts) != hdrCounts {
			t.Fatalf("HDR has %d counts, the histogram %d", len(counts), hdrCounts)
		}
		if i := hdrIndex(v); counts[i] != 1 {
			t.Fatalf("value %d: HDR counts it elsewhere than index %d", v, i)
		}
	}
	for _, v := range []int64{1, 2, 127, 128, 255, 256, 257, 511, 512, 1000, 1 << 20, 1<<20 + 1, 3_000_000, hdrHighest - 1, hdrHighest} {
		check(t, v)
	}
	rapid.Check(t, func(t *rapid.T) {
		bits := rapid.IntRange(1, 41).Draw(t, "bits")
		v := rapid.Int64Range(1<<(bits-1), min(1<<bits-1, hdrHighest)).Draw(t, "v")
		check(t, v)
	})
}

// TestHistogramAgreesWithHDR: the same latencies give the same figures as
// recording them in hdrhistogram-go directly, merged or not.
func TestHistogramAgreesWithHDR(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		vals := rapid.SliceOfN(rapid.Int64Range(0, 2*hdrHighest), 1, 500).Draw(t, "vals")
		split := rapid.IntRange(0, len(vals)).Draw(t, "split")
		direct := hdrhistogram.New(1, hdrHighest, hdrDigits)
		a, b := NewLatencyHistogram(), NewLatencyHistogram()
		for i, v := range vals {
			direct.RecordValue(min(max(v, 1), hdrHighest))
			if i < split {
				a.Record(v)
			} else {
				b.Record(v)
			}
		}
		a.Merge(b)
		ps := []float64{0, 1, 50, 90, 99, 99.9, 100}
		got, want := a.hdr().ValueAtPercentilesSlice(ps), direct.ValueAtPercentilesSlice(ps)
		for i := range ps {
			if got[i] != want[i] {
				t.Fatalf("p%v: %d, HDR says %d", ps[i], got[i], want[i])
			}
		}
	})
}
