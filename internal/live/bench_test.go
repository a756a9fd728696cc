package live

import (
	"math/rand/v2"
	"runtime"
	"testing"
	"time"

	"github.com/tressi/tressi/results"
)

// rowsAt20k feeds a rows of a run at 20k req/s (two endpoints, latencies
// of 0.2–5 ms, one in a hundred a 503) into a.
func rowsAt20k(a *Aggregator, seconds int, rng *rand.Rand) {
	row := results.Row{}
	for k := range 20000 * seconds {
		due := int64(k) * int64(time.Second) / 20000
		lat := int64(200e3 + rng.IntN(4800e3))
		row = results.Row{Scheduled: due, Sent: due + int64(rng.IntN(300e3)), Latency: lat, Service: lat - 50e3,
			Status: 200, Endpoint: uint16(k % 2), BytesOut: 40, BytesIn: 140}
		if k%100 == 0 {
			row.Status = 503
		}
		a.Observe(&row, row.Status == 200)
	}
}

// The cost on the recorder's goroutine, per row.
func BenchmarkAggregatorObserve(b *testing.B) {
	a := NewAggregator(0, 0)
	a.SetEndpoints([]string{"a", "b"})
	rng := rand.New(rand.NewPCG(1, 2))
	row := results.Row{Status: 200, BytesOut: 40, BytesIn: 140}
	b.ReportAllocs()
	for i := range b.N {
		due := int64(i) * int64(time.Second) / 20000
		lat := int64(200e3 + rng.IntN(4800e3))
		row.Scheduled, row.Sent, row.Latency, row.Service, row.Endpoint = due, due+1000, lat, lat-50e3, uint16(i%2)
		a.Observe(&row, true)
	}
}

// The heap the aggregation holds after a 10 s and a 60 s run at 20k
// req/s: what it adds to the process's peak RSS.
func BenchmarkAggregatorHeap(b *testing.B) {
	for _, secs := range []int{10, 60} {
		b.Run(time.Duration(secs*int(time.Second)).String(), func(b *testing.B) {
			for range b.N {
				runtime.GC()
				var before, after runtime.MemStats
				runtime.ReadMemStats(&before)
				a := NewAggregator(0, 0)
				a.SetEndpoints([]string{"a", "b"})
				rowsAt20k(a, secs, rand.New(rand.NewPCG(1, 2)))
				_, _, ivs := a.Flush()
				runtime.GC()
				runtime.ReadMemStats(&after)
				b.ReportMetric(float64(after.HeapAlloc-before.HeapAlloc)/1024, "KiB-held")
				runtime.KeepAlive(a)
				runtime.KeepAlive(ivs)
			}
		})
	}
}

// What publishing costs once a second at the end of a 60 s run: the
// flush, the view's totals over every interval.
func BenchmarkPublish60s(b *testing.B) {
	a := NewAggregator(0, 0)
	a.SetEndpoints([]string{"a", "b"})
	rowsAt20k(a, 60, rand.New(rand.NewPCG(1, 2)))
	v := NewView(RunInfo{})
	w, _, ivs := a.Flush()
	v.Apply(Update{Width: w, Reset: true, Intervals: ivs})
	b.ResetTimer()
	for range b.N {
		v.Apply(Update{Width: w, Intervals: ivs[len(ivs)-2:]})
	}
}
