package exec

import (
	"testing"
	"time"
)

// BenchmarkOpenSendLag runs the open model for real (loopback server, the
// pacer, the recorder, the Arrow file) at 10k req/s for half a second per
// iteration and reports the send lag (sent − scheduled) percentiles and the
// process CPU per request (the server's included: it runs in the process). `go test -bench OpenSendLag -benchtime 4x ./exec`.
func BenchmarkOpenSendLag(b *testing.B) {
	srv := serve(b, ok)
	const n, interval = 5000, 100 * time.Microsecond
	var lags []int64
	cpu0 := processCPU()
	for b.Loop() {
		_, rows := runPlan(b, schedule(srv.addr, n, interval), Options{})
		checkOneRowPerSlot(b, rows, n)
		for _, r := range rows {
			lags = append(lags, r.Sent-r.Scheduled)
		}
	}
	b.ReportMetric(float64(processCPU()-cpu0)/1e3/float64(len(lags)), "cpu-µs/req")
	b.ReportMetric(float64(quantileOf(lags, .5))/1e3, "lag-p50-µs")
	b.ReportMetric(float64(quantileOf(lags, .99))/1e3, "lag-p99-µs")
}
