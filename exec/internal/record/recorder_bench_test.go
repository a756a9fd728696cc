package record

import (
	"testing"

	"github.com/tressi/tressi/results"
)

// BenchmarkRecorderCount is the recorder's per-row bookkeeping (totals and
// the live latency window), which runs on the same cores as the senders.
func BenchmarkRecorderCount(b *testing.B) {
	r := NewRecorder(nil, 1, OpenBatchRows)
	rows := make([]results.Row, 1024)
	for i := range rows {
		rows[i] = results.Row{Slot: uint64(i), Latency: int64(1000 + i), Sent: 1, Status: 200}
		if i%50 == 0 {
			rows[i].Status, rows[i].Error, rows[i].Latency = 0, results.Timeout, -1
		}
	}
	expect := func(_, status uint16) bool { return status >= 200 && status <= 399 }
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		for i := range rows {
			r.count(&rows[i], expect)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(rows)), "ns/row")
}
