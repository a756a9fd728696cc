package exec

import (
	"io"
	"net"
	"testing"
	"time"

	"github.com/tressi/tressi/compile"
	"github.com/tressi/tressi/exec/internal/record"
	"github.com/tressi/tressi/exec/internal/run"
	"github.com/tressi/tressi/plan"
	"github.com/tressi/tressi/results"
	"github.com/valyala/fasthttp"
	"github.com/valyala/fasthttp/fasthttputil"
)

// benchExecutor is an executor wired to an in-memory fasthttp server, for
// measuring the per-request path without the network.
func benchExecutor(b *testing.B, s *compile.Schedule) *run.Executor {
	ln := fasthttputil.NewInmemoryListener()
	srv := &fasthttp.Server{Handler: func(ctx *fasthttp.RequestCtx) { ctx.SetBodyString("hello, world") }}
	go srv.Serve(ln)
	b.Cleanup(func() { ln.Close() })

	ex := &run.Executor{S: s, StopCh: make(chan struct{}), Grace: time.Second, MaxSample: 64}
	ex.Clock.Base = time.Now()
	ex.Cl, _ = run.NewClients(s.Targets, &ex.Clock, DefaultMaxResponseBody)
	ex.Cl.Hosts[0].Dial = func(string) (net.Conn, error) {
		c, err := ln.Dial()
		if err != nil {
			return nil, err
		}
		return ex.Cl.Track(c, c), nil
	}
	reqs, names, err := run.PrepareRequests(s, ex.Cl)
	if err != nil {
		b.Fatal(err)
	}
	ex.Reqs = reqs
	w, err := results.NewWriter(io.Discard, results.Meta{}, names)
	if err != nil {
		b.Fatal(err)
	}
	ex.Th = run.NewThresholds(results.Thresholds{}, ex)
	ex.Rec = record.NewRecorder(w, 1, record.OpenBatchRows)
	go ex.Rec.Run(func(uint16, uint16) bool { return true })
	b.Cleanup(func() { close(ex.Rec.In); <-ex.Rec.Done })
	return ex
}

// BenchmarkSend is the hot path: render (or copy) the request, send it,
// read and discard the response, append the row.
func BenchmarkSend(b *testing.B) {
	for _, tc := range []struct {
		name string
		req  compile.Request
	}{
		{"static", compile.Request{Name: "home", Method: "GET", URI: literal("/"), Static: true}},
		{"holes", compile.Request{Name: "item", Method: "POST",
			URI:  compile.Splice{Segments: [][]byte{[]byte("/item/"), nil}, Holes: []compile.Hole{{Kind: plan.HoleSeq}}},
			Body: compile.Splice{Segments: [][]byte{[]byte(`{"id":"`), []byte(`"}`)}, Holes: []compile.Hole{{Kind: plan.HoleUUID}}}}},
	} {
		b.Run(tc.name, func(b *testing.B) {
			s := schedule("inmemory", 0, time.Millisecond)
			s.Requests[0] = tc.req
			ex := benchExecutor(b, s)
			w := ex.NewWorker()
			for k := range 1000 { // warm up: connection, buffers, samples
				w.Send(uint64(k), 0, ex.Clock.Now())
			}
			b.ReportAllocs()
			b.ResetTimer()
			for k := range b.N {
				w.Send(uint64(k), 0, ex.Clock.Now())
			}
			b.StopTimer()
			w.Flush()
		})
	}
}

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
