package fast

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

// benchSchedule is an open schedule of no slots whose one endpoint sends req
// to an in-memory target.
func benchSchedule(req compile.Request) *compile.Schedule {
	s := &compile.Schedule{
		Name: "bench", Model: compile.Open, Seed: 7, Hash: "h",
		Targets: []compile.Target{{Name: "t", Scheme: "http", Addr: "inmemory", Host: "inmemory", Connections: 64,
			Timeout: 2 * time.Second, ConnectTimeout: time.Second}},
		Requests: []compile.Request{req},
		Entries:  []compile.Entry{{Name: "home", Weight: 1, Data: -1, Steps: []compile.Step{{Name: "home", Request: 0, Repeat: 1}}}},
	}
	return s.WithSlots(nil)
}

func literal(s string) compile.Splice { return compile.Splice{Segments: [][]byte{[]byte(s)}} }

// benchExecutor is an executor wired to an in-memory fasthttp server, for
// measuring the per-request path without the network.
func benchExecutor(b *testing.B, s *compile.Schedule) *run.Executor {
	ln := fasthttputil.NewInmemoryListener()
	srv := &fasthttp.Server{Handler: func(ctx *fasthttp.RequestCtx) { ctx.SetBodyString("hello, world") }}
	go srv.Serve(ln)
	b.Cleanup(func() { ln.Close() })

	ex := &run.Executor{S: s, StopCh: make(chan struct{}), Grace: time.Second, MaxSample: 64}
	ex.Clock.Base = time.Now()
	ex.Cl, _ = run.NewClients(s.Targets, &ex.Clock, 64<<20) // exec.DefaultMaxResponseBody
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
	ex.Cookies = run.NewRunCookies(s) // as exec's setUp: each entry's cookie mode
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
			s := benchSchedule(tc.req)
			ex := benchExecutor(b, s)
			w := New(ex, nil).newWorker()
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
