package exec

import (
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/tressi/tressi/compile"
	"github.com/valyala/fasthttp"
)

// Napping through responses keeps their latency the server's: 64 closed
// users over HTTP/2 against a server that answers after 3 ms (so the loop
// naps), and every row's service latency is at least those 3 ms (a stamp
// never predates its request's send), within its latency. HTTP/1.1, which
// never naps, holds to the same.
func TestClosedNapKeepsLatencyHonest(t *testing.T) {
	const delay = 3 * time.Millisecond
	srv := serve(t, func(ctx *fasthttp.RequestCtx) {
		time.Sleep(delay)
		ctx.SetBodyString("ok")
	})
	s := schedule(srv.addr, 0, time.Millisecond)
	s.Model, s.Count = compile.Closed, 0
	// A machine loaded far past its cores can hold a 3 ms answer for
	// seconds; this test is about the stamps, not the speed.
	s.Targets[0].Timeout, s.Targets[0].ConnectTimeout = 30*time.Second, 30*time.Second
	for range 64 {
		s.Users = append(s.Users, compile.UserSpan{Start: 0, Stop: int64(time.Second)})
	}
	checkNapRows(t, s, delay)

	// HTTP/2: one read takes several streams' responses, all stamped with
	// the last one's arrival, which is still after each one's send.
	h2srv := serveH2C(t, func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(delay)
		io.WriteString(w, "ok")
	})
	checkNapRows(t, compilePlan(t, h2cClosedPlan(h2srv.addr, 4, 16, 64), nil), delay)
}

func checkNapRows(t *testing.T, s *compile.Schedule, delay time.Duration) {
	t.Helper()
	out, rows := runPlan(t, s, Options{Engine: EngineLoop})
	// 64 users for 1 s at 3 ms each: about 20,000 requests when idle, as
	// few as one round on a machine loaded far past its cores. Every user
	// sends at least once; how many more rounds is the machine's, not the
	// engine's, and every row holds to the stamps' order below.
	if out.OK != int64(len(rows)) || len(rows) < 64 {
		t.Fatalf("%d rows, outcome %+v", len(rows), out)
	}
	for _, r := range rows {
		if time.Duration(r.Service) < delay {
			t.Fatalf("slot %d: service latency %v, under the server's %v", r.Slot, time.Duration(r.Service), delay)
		}
		if r.Latency < r.Service || r.Sent < r.Scheduled {
			t.Fatalf("slot %d: scheduled %d, sent %d, latency %v, service %v", r.Slot, r.Scheduled, r.Sent,
				time.Duration(r.Latency), time.Duration(r.Service))
		}
	}
}
