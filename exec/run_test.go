package exec

import (
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tressi/tressi/compile"
	"github.com/tressi/tressi/plan"
	"github.com/tressi/tressi/results"
	"github.com/valyala/fasthttp"
)

// 2000 req/s for 5 s: exactly 10000 requests reach the server (no retries),
// one row each, slot k due at exactly k×500µs.
func TestExactCountAndDueInstants(t *testing.T) {
	if testing.Short() {
		t.Skip("5 s run")
	}
	srv := serve(t, ok)
	const n = 10000
	out, rows := runPlan(t, schedule(srv.addr, n, 500*time.Microsecond), Options{})
	checkOneRowPerSlot(t, rows, n)
	if got := srv.count.Load(); got != n {
		t.Fatalf("server saw %d requests, want %d", got, n)
	}
	lags := make([]int64, 0, n)
	for k, r := range rows {
		if r.Scheduled != int64(k)*500_000 {
			t.Fatalf("slot %d scheduled at %d ns, want %d", k, r.Scheduled, int64(k)*500_000)
		}
		if r.Error != results.None || r.Status != 200 || r.Sent < r.Scheduled || r.Latency < r.Service || r.BytesOut == 0 || r.BytesIn == 0 {
			t.Fatalf("slot %d: %+v", k, r)
		}
		lags = append(lags, r.Sent-r.Scheduled)
	}
	if out.Requests != n || out.Sent != n || out.OK != n || !out.Passed() {
		t.Fatalf("outcome %+v", out)
	}
	t.Logf("send lag p50 %v p99 %v max %v; corrected p99 %v",
		time.Duration(quantileOf(lags, .5)), time.Duration(quantileOf(lags, .99)), time.Duration(quantileOf(lags, 1)), out.Latency["p99"])
}

// A server-wide stall of 500 ms at a steady rate shows in the corrected
// p95/p99 as the delays users really saw, while service time hides it.
func TestStallShowsInCorrectedLatency(t *testing.T) {
	const (
		interval   = time.Millisecond
		n          = 2000
		stallStart = 500 * time.Millisecond
		stall      = 500 * time.Millisecond
	)
	start := time.Now().Add(200 * time.Millisecond)
	stallEnd := start.Add(stallStart + stall)
	srv := serve(t, func(ctx *fasthttp.RequestCtx) {
		if now := time.Now(); now.After(start.Add(stallStart)) && now.Before(stallEnd) {
			time.Sleep(time.Until(stallEnd))
		}
		ok(ctx)
	})
	s := schedule(srv.addr, n, interval)
	s.Targets[0].Connections = 8
	// No request may time out, however busy the machine: this test is
	// about latency, not timeouts.
	s.Targets[0].Timeout = time.Minute
	out, rows := runPlan(t, s, Options{StartAt: start})
	checkOneRowPerSlot(t, rows, n)

	truth := make([]int64, n) // what a user arriving at each due instant waited, at least
	lat, svc := make([]int64, n), make([]int64, n)
	for k, r := range rows {
		due := int64(k) * int64(interval)
		if due >= int64(stallStart) && due < int64(stallStart+stall) {
			truth[k] = int64(stallStart+stall) - due
		}
		if r.Latency < truth[k]-int64(2*time.Millisecond) {
			t.Fatalf("slot %d: latency %v below the stall it sat through (%v)", k, time.Duration(r.Latency), time.Duration(truth[k]))
		}
		lat[k], svc[k] = r.Latency, r.Service
	}
	for _, q := range []struct {
		name string
		q    float64
	}{{"p95", .95}, {"p99", .99}} {
		want := time.Duration(quantileOf(truth, q.q))
		got := out.Latency[q.name]
		// Never below the truth. Above it by the catch-up after the stall
		// (the backlog drains through 8 connections, and those users
		// waited for it too), which a busy machine stretches without
		// bound: how far above is a timing figure, not asserted here.
		if got < want {
			t.Errorf("corrected %s = %v, the true delay is %v", q.name, got, want)
		}
		t.Logf("%s: corrected %v, truth %v, service %v", q.name, got, want, time.Duration(quantileOf(svc, q.q)))
	}
	// Service time hides the stall (only the few requests in flight sat
	// through it): its p99 stays far below the corrected one.
	if p99, corrected := time.Duration(quantileOf(svc, .99)), out.Latency["p99"]; p99 > corrected/2 {
		t.Errorf("service p99 %v, corrected p99 %v: expected service time to hide the stall (only a few requests were in flight)", p99, corrected)
	}
}

// A closed port: the run finishes with one connect_refused row per slot
// (a refusal, never a connect timeout: that is the behaviour; the bound
// only turns a hang into a failure, with a loaded machine's margin).
func TestConnectRefused(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	begin := time.Now()
	out, rows := runPlan(t, schedule(addr, 50, 4*time.Millisecond), Options{})
	if d := time.Since(begin); d > 30*time.Second {
		t.Fatalf("run took %v for a 200 ms schedule", d)
	}
	checkOneRowPerSlot(t, rows, 50)
	for _, r := range rows {
		if r.Error != results.ConnectRefused || r.Sent != -1 || r.Latency != -1 || r.Service != -1 || r.Status != 0 {
			t.Fatalf("row %+v, want connect_refused and never sent", r)
		}
	}
	if out.ErrorKinds["connect_refused"] != 50 || out.OK != 0 {
		t.Fatalf("outcome %+v", out)
	}
}

// silentServer reads requests and never answers; it counts the requests
// it read. closeAfterRead closes the connection instead.
func silentServer(t *testing.T, closeAfterRead bool) (string, *atomic.Int64) {
	var n atomic.Int64
	addr := rawServer(t, func(c net.Conn, _ *http.Request) bool {
		n.Add(1)
		if !closeAfterRead {
			io.Copy(io.Discard, c) // until the client gives up
		}
		return false
	})
	return addr, &n
}

// A server that never answers: timeout rows, and the run ends on the
// target's timeout, not on the server. The server holds every connection
// until the client gives up, so without the timeout the run would never
// end; the bound below only turns that hang into a failure, with a margin
// that holds on a machine whose load average is far above its cores.
func TestTimeout(t *testing.T) {
	addr, _ := silentServer(t, false)
	s := schedule(addr, 10, 10*time.Millisecond)
	s.Targets[0].Timeout = 200 * time.Millisecond
	begin := time.Now()
	_, rows := runPlan(t, s, Options{})
	if d := time.Since(begin); d > time.Minute {
		t.Fatalf("run took %v: the 200ms timeout did not end the requests", d)
	}
	checkOneRowPerSlot(t, rows, 10)
	for _, r := range rows {
		if r.Error != results.Timeout || r.Sent < 0 || r.Latency != -1 || r.BytesOut == 0 {
			t.Fatalf("row %+v, want a sent request that timed out", r)
		}
	}
}

// Retries are off: a server closing the connection without answering a GET
// gets exactly one request per slot.
func TestNoRetry(t *testing.T) {
	addr, n := silentServer(t, true)
	_, rows := runPlan(t, schedule(addr, 20, 5*time.Millisecond), Options{})
	checkOneRowPerSlot(t, rows, 20)
	if got := n.Load(); got != 20 {
		t.Fatalf("server read %d requests for 20 slots: something retried", got)
	}
	for _, r := range rows {
		if r.Error != results.Reset {
			t.Fatalf("row %+v, want reset", r)
		}
	}
}

// Interrupting mid-run: complete files, one row per slot, the in-flight
// ones interrupted after the grace and the rest not sent. The interrupt
// comes once the first answer is recorded, not at a fixed time (a loaded
// machine's set-up outlasted one, and every slot was not sent), and the
// slow requests are held for far longer than the run may take.
func TestInterrupt(t *testing.T) {
	release := make(chan struct{})
	srv := serve(t, func(ctx *fasthttp.RequestCtx) {
		if string(ctx.Path()) == "/slow" {
			select {
			case <-time.After(time.Minute):
			case <-release:
			}
		}
		ok(ctx)
	})
	t.Cleanup(func() { close(release) }) // before the server's shutdown, which waits for them
	const n = 1000
	s := schedule(srv.addr, n, time.Millisecond)
	s.Requests = append(s.Requests, compile.Request{Name: "slow", Method: "GET", URI: literal("/slow"), Static: true})
	s.Entries = append(s.Entries, compile.Entry{Name: "slow", Weight: 1, Data: -1, Steps: []compile.Step{{Name: "slow", Request: 1}}})
	slots := make([]compile.Slot, n)
	for k := range slots {
		slots[k] = compile.MakeSlot(int64(k)*int64(time.Millisecond), k%2)
	}
	s.WithSlots(slots)
	intr := make(chan struct{})
	var once sync.Once
	observe := func(_ *results.Row, ok bool) {
		if ok {
			once.Do(func() { close(intr) })
		}
	}
	begin := time.Now()
	out, rows := runPlan(t, s, Options{Interrupt: intr, Grace: 100 * time.Millisecond, Observe: observe})
	// Waiting for the slow requests would take a minute; the interrupt and
	// its 100 ms grace end the run in well under a second when idle, in
	// seconds on a machine loaded far past its cores.
	if d := time.Since(begin); d > 30*time.Second {
		t.Fatalf("interrupted run took %v: it waited for the slow requests", d)
	}
	checkOneRowPerSlot(t, rows, n)
	if !out.Interrupted || out.Passed() {
		t.Fatalf("outcome %+v", out)
	}
	kinds := countErrors(rows)
	if kinds[results.Interrupted] == 0 || kinds[results.NotSent] < n/2 || kinds[results.None] == 0 {
		t.Fatalf("error kinds %v", kinds)
	}
	for _, r := range rows {
		if r.Error == results.NotSent && (r.Sent != -1 || r.Latency != -1 || r.Status != 0) {
			t.Fatalf("not_sent row %+v", r)
		}
	}
	for _, f := range []string{SamplesFile, MetaFile} {
		if _, err := os.Stat(filepath.Join(out.Dir, f)); err != nil {
			t.Fatal(err)
		}
	}
}

// Early exit on a status code and on the error rate: not_sent rows for the rest.
func TestEarlyExit(t *testing.T) {
	for _, tc := range []struct {
		name string
		th   results.Thresholds
	}{
		{"status_codes", results.Thresholds{StatusCodes: []int{503}, Abort: true}},
		{"error_rate", results.Thresholds{ErrorRate: 0.1, Abort: true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := serve(t, func(ctx *fasthttp.RequestCtx) {
				if srvCount := ctx.ID(); srvCount > 0 {
					ctx.SetStatusCode(503)
				}
			})
			const n = 2000
			s := schedule(srv.addr, n, time.Millisecond)
			s.Thresholds = tc.th
			out, rows := runPlan(t, s, Options{})
			checkOneRowPerSlot(t, rows, n)
			if !out.EarlyExit || len(out.ThresholdFailures) == 0 || !strings.HasPrefix(out.ThresholdFailures[0], tc.name) {
				t.Fatalf("outcome %+v", out)
			}
			if ns := countErrors(rows)[results.NotSent]; ns < n/2 {
				t.Fatalf("%d not_sent rows", ns)
			}
		})
	}
}

// Requests with holes are rendered per slot: seq fills the path.
func TestRenderedRequests(t *testing.T) {
	var bad atomic.Int64
	srv := serve(t, func(ctx *fasthttp.RequestCtx) {
		if !strings.HasPrefix(string(ctx.Path()), "/item/") || string(ctx.Request.Header.Peek("X-Seq")) != strings.TrimPrefix(string(ctx.Path()), "/item/") ||
			string(ctx.PostBody()) != `{"n":`+strings.TrimPrefix(string(ctx.Path()), "/item/")+`}` {
			bad.Add(1)
		}
		ctx.SetBodyString(strings.TrimPrefix(string(ctx.Path()), "/item/"))
	})
	s := schedule(srv.addr, 100, time.Millisecond)
	seq := func(before, after string) compile.Splice {
		return compile.Splice{Segments: [][]byte{[]byte(before), []byte(after)}, Holes: []compile.Hole{{Kind: plan.HoleSeq}}}
	}
	s.Requests[0] = compile.Request{Name: "item", Method: "POST", URI: seq("/item/", ""),
		Headers: []compile.HeaderSplice{{Name: "X-Seq", Value: seq("", "")}}, Body: seq(`{"n":`, `}`)}
	_, rows := runPlan(t, s, Options{})
	checkOneRowPerSlot(t, rows, 100)
	if bad.Load() != 0 || countErrors(rows)[results.None] != 100 {
		t.Fatalf("%d requests rendered wrong; errors %v", bad.Load(), countErrors(rows))
	}
}

// The closed model: users send back to back within their spans; a capped
// entry is held to its max_rate without stopping the others.
func TestClosedModel(t *testing.T) {
	srv := serve(t, ok)
	s := schedule(srv.addr, 0, time.Millisecond)
	s.Model, s.Count = compile.Closed, 0
	s.Users = []compile.UserSpan{{Start: 0, Stop: int64(time.Second)}, {Start: 0, Stop: int64(time.Second)}, {Start: int64(500 * time.Millisecond), Stop: int64(time.Second)}}
	s.Entries[0].MaxRate = 100
	// Instant zero a second ahead: the spans are measured from it, and a
	// busy machine can spend longer than a span on the run's set-up.
	out, rows := runPlan(t, s, Options{StartAt: time.Now().Add(time.Second)})
	// The cap must hold (at most 100/s plus the bucket's one token). How
	// many requests a 1 s span gets is a timing figure: a machine busy
	// enough delays the users' first sends by seconds, so only a total
	// breakdown (no request at all) is asserted.
	if len(rows) < 1 || len(rows) > 105 {
		t.Fatalf("%d requests in 1 s at max_rate 100", len(rows))
	}
	if out.OK != int64(len(rows)) || !out.Passed() {
		t.Fatalf("outcome %+v", out)
	}
	seen := map[uint64]bool{}
	for _, r := range rows {
		if seen[r.Slot] || r.Sent < r.Scheduled || r.Latency < 0 {
			t.Fatalf("row %+v", r)
		}
		seen[r.Slot] = true
	}
}

func TestDefaultRunDir(t *testing.T) {
	at := time.Date(2025, 3, 4, 5, 6, 7, 0, time.FixedZone("x", 3600))
	got := DefaultRunDir(`my plan: v2/x\y*`, at)
	want := filepath.Join("tressi-runs", "my_plan__v2_x_y_-20250304T040607Z")
	if got != want {
		t.Fatalf("DefaultRunDir = %q, want %q", got, want)
	}
	if DefaultRunDir("..", at) != filepath.Join("tressi-runs", "run-20250304T040607Z") {
		t.Fatal("a dot-only plan name must not escape the runs directory")
	}
}
