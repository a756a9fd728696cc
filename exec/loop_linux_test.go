package exec

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tressi/tressi/compile"
	"github.com/tressi/tressi/results"
	"github.com/valyala/fasthttp"
)

// Several loops (one per spare P) split the slots and the users between
// them: every slot still goes out exactly once, shards included.
func TestLoopsSplitTheWork(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4)) // 3 loops
	srv := serve(t, ok)
	for _, shard := range []results.Shard{{Index: 0, Count: 1}, {Index: 1, Count: 2}} {
		const n = 3001
		before := srv.count.Load()
		out, rows := runPlan(t, schedule(srv.addr, n, 100*time.Microsecond), Options{Shard: shard, Engine: EngineLoop})
		want := n
		if shard.Count == 2 {
			want = n / 2 // slots 1, 3, …, 2999
		}
		if len(rows) != want || srv.count.Load()-before != int64(want) || out.OK != int64(want) {
			t.Fatalf("shard %v: %d rows, server saw %d, outcome %+v; want %d", shard, len(rows), srv.count.Load()-before, out, want)
		}
		for i, r := range rows {
			if int(r.Slot) != i*int(shard.Count)+shard.Index {
				t.Fatalf("shard %v: row %d is slot %d", shard, i, r.Slot)
			}
		}
	}

	// Closed: 7 users over 3 loops, each thinking 20 ms between requests.
	s := schedule(srv.addr, 0, time.Millisecond)
	s.Model, s.Count, s.Think = compile.Closed, 0, 20*time.Millisecond
	for range 7 {
		s.Users = append(s.Users, compile.UserSpan{Start: 0, Stop: int64(400 * time.Millisecond)})
	}
	out, rows := runPlan(t, s, Options{Engine: EngineLoop})
	// Each user sends at most 400/20 + 1 = 21 requests: 147 in all, about
	// 140 on an idle machine. A busy one takes from the 400 ms (the loops'
	// start-up counts against it), so the floor is only that every user got
	// some: the ceiling is what shows the think time held.
	if len(rows) < 7 || len(rows) > 147 || out.OK != int64(len(rows)) {
		t.Fatalf("closed with think: %d rows, outcome %+v", len(rows), out)
	}
}

// A request body larger than the socket buffers, sent to a server that
// reads it slowly, goes out in pieces as the server makes room (the
// partial-write path) and arrives whole.
func TestLoopLargeBody(t *testing.T) {
	body := strings.Repeat("0123456789abcdef", 3<<18) // 12 MiB: more than socket buffers hold
	var got atomic.Int64
	addr := rawServer(t, func(c net.Conn, req *http.Request) bool {
		var b strings.Builder
		chunk := make([]byte, 64<<10)
		for {
			n, err := req.Body.Read(chunk)
			b.Write(chunk[:n])
			if err != nil {
				break
			}
			time.Sleep(100 * time.Microsecond)
		}
		if b.String() == body {
			got.Add(1)
		}
		write(c, "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
		return true
	})
	s := schedule(addr, 3, 10*time.Millisecond)
	s.Targets[0].Connections = 1
	s.Targets[0].Timeout = time.Minute // the three queue for one connection
	s.Requests[0] = compile.Request{Name: "upload", Method: "POST", URI: literal("/up"), Body: literal(body), Static: true}
	_, rows := runPlan(t, s, Options{Engine: EngineLoop})
	checkOneRowPerSlot(t, rows, 3)
	for _, r := range rows {
		if r.Error != results.None || r.BytesOut < uint32(len(body)) {
			t.Fatalf("row %+v", r)
		}
	}
	if got.Load() != 3 {
		t.Fatalf("the server got %d whole bodies of 3", got.Load())
	}
}

// The loop's per-request path allocates nothing: what a closed run allocates
// is per run (connections, files, goroutines) and per batch. The test takes
// the difference of a short and a long run, so a slow, busy machine (fewer
// requests over which to spread the per-run part) does not fail it.
func TestLoopAllocatesNothingPerRequest(t *testing.T) {
	if testing.Short() {
		t.Skip("a 1.5 s run")
	}
	if raceEnabled {
		t.Skip("the race detector's instrumentation allocates")
	}
	srv := serve(t, ok)
	if perRequest := loopAllocationsPerRequest(t, srv.addr, func(*compile.Schedule) {}); perRequest > 0.2 {
		t.Fatalf("%.2f allocations per request: something on the per-request path allocates", perRequest)
	}
}

// loopAllocationsPerRequest runs a closed schedule to addr, which setup
// may change, for a short and a long time: the allocations per request
// the long run made beyond the short one.
func loopAllocationsPerRequest(t *testing.T, addr string, setup func(*compile.Schedule)) float64 {
	t.Helper()
	run := func(d time.Duration) (requests, mallocs uint64) {
		s := schedule(addr, 0, time.Millisecond)
		s.Model, s.Count = compile.Closed, 0
		for range 4 {
			s.Users = append(s.Users, compile.UserSpan{Start: 0, Stop: int64(d)})
		}
		setup(s)
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		out, err := Run(t.Context(), s, Options{OutDir: t.TempDir() + "/run", Engine: EngineLoop})
		runtime.ReadMemStats(&after)
		if err != nil {
			t.Fatal(err)
		}
		return uint64(out.Requests), after.Mallocs - before.Mallocs
	}
	shortReqs, shortMallocs := run(250 * time.Millisecond)
	longReqs, longMallocs := run(1250 * time.Millisecond)
	if longReqs < shortReqs+1000 {
		t.Fatalf("the long run sent %d requests, the short one %d: too few to tell", longReqs, shortReqs)
	}
	perRequest := (float64(longMallocs) - float64(shortMallocs)) / float64(longReqs-shortReqs)
	t.Logf("%d and %d requests, %d and %d allocations: %.3f allocations per extra request",
		shortReqs, longReqs, shortMallocs, longMallocs, perRequest)
	return perRequest
}

// A server that answers before reading the whole request (a 413 for a big
// upload) gets its answer recorded, and the connection, with the rest of
// the request still unsent, is never reused for the next one.
func TestLoopEarlyAnswer(t *testing.T) {
	body := strings.Repeat("x", 12<<20)
	addr := rawServer(t, func(c net.Conn, req *http.Request) bool {
		write(c, "HTTP/1.1 413 Content Too Large\r\nContent-Length: 0\r\n\r\n")
		io.Copy(io.Discard, req.Body)
		return true
	})
	s := schedule(addr, 3, 50*time.Millisecond)
	s.Targets[0].Connections = 1
	s.Requests[0] = compile.Request{Name: "upload", Method: "POST", URI: literal("/up"), Body: literal(body), Static: true,
		Expect: []int{413}}
	out, rows := runPlan(t, s, Options{Engine: EngineLoop})
	checkOneRowPerSlot(t, rows, 3)
	for _, r := range rows {
		if r.Error != results.None || r.Status != 413 {
			t.Fatalf("row %+v", r)
		}
	}
	if out.OK != 3 {
		t.Fatalf("outcome %+v", out)
	}
}

// Large response bodies, with a length or chunked, stream through a small
// read buffer that grows: every byte is counted, the sample keeps its
// prefix and the body's whole size.
func TestLoopLargeResponses(t *testing.T) {
	big := strings.Repeat("0123456789", 300_000) // 3 MB
	for _, chunked := range []bool{false, true} {
		srv := serve(t, func(ctx *fasthttp.RequestCtx) {
			if chunked {
				ctx.SetBodyStreamWriter(func(w *bufio.Writer) {
					for i := 0; i < len(big); i += 100_000 {
						w.WriteString(big[i : i+100_000])
						w.Flush()
					}
				})
				return
			}
			ctx.SetBodyString(big)
		})
		dir := filepath.Join(t.TempDir(), "run")
		_, rows := runPlan(t, schedule(srv.addr, 5, 20*time.Millisecond), Options{Engine: EngineLoop, OutDir: dir})
		checkOneRowPerSlot(t, rows, 5)
		for _, r := range rows {
			if r.Error != results.None || r.Status != 200 || r.BytesIn < uint32(len(big)) {
				t.Fatalf("chunked %v: row %+v", chunked, r)
			}
		}
		f, err := os.Open(filepath.Join(dir, SamplesFile))
		if err != nil {
			t.Fatal(err)
		}
		samples, err := results.ReadSamples(f)
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		if len(samples) != 1 || samples[0].BodySize != uint32(len(big)) || string(samples[0].Body) != big[:len(samples[0].Body)] || len(samples[0].Body) == 0 {
			t.Fatalf("chunked %v: samples %d, size %d", chunked, len(samples), samples[0].BodySize)
		}
	}
}

// Sessions on the loop allocate nothing per request either: a closed run
// of log-in-then-ten-requests sessions, the token captured from a header
// and sent back in every request.
func TestLoopScenarioAllocatesNothingPerRequest(t *testing.T) {
	if testing.Short() {
		t.Skip("a 1 s run")
	}
	if raceEnabled {
		t.Skip("the race detector's instrumentation allocates")
	}
	var bad atomic.Int64
	srv := serve(t, func(ctx *fasthttp.RequestCtx) {
		if string(ctx.Path()) == "/login" {
			ctx.Response.Header.Set("X-Token", "tok-42")
			ctx.SetBodyString(`{"token":"tok-42"}`)
			return
		}
		if string(ctx.Request.Header.Peek("Authorization")) != "Bearer tok-42" {
			bad.Add(1)
		}
		ok(ctx)
	})
	s := compilePlan(t, fmt.Sprintf(`
target "api" {
  url         = "http://%s"
  connections = 4
}
scenario "journey" {
  step "login" {
    method  = "POST"
    path    = "/login"
    capture = { token = header("X-Token") }
  }
  step "me" {
    path    = "/me"
    headers = { Authorization = "Bearer ${captured.token}" }
    repeat  = 10
  }
}
load {
  model = "closed"
  stage {
    duration = "1s"
    users    = 4
  }
}
`, srv.addr), nil)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	out, err := Run(t.Context(), s, Options{OutDir: t.TempDir() + "/run", Engine: EngineLoop})
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	if out.Requests < 2000 || out.OK != out.Requests || bad.Load() != 0 {
		t.Fatalf("%d requests, %d ok, %d without the captured token", out.Requests, out.OK, bad.Load())
	}
	perRequest := float64(after.Mallocs-before.Mallocs) / float64(out.Requests)
	t.Logf("%d requests, %.3f allocations per request", out.Requests, perRequest)
	if perRequest > 0.2 {
		t.Fatalf("%.2f allocations per request: something on a session's per-request path allocates", perRequest)
	}
}

// Over HTTPS the loop's own path allocates nothing per request either;
// crypto/tls makes one small allocation each time it reads a record from
// the socket (conn.go's readFromUntil hands &atLeastReader{...} to an
// interface), so a response in one record costs one. What a run costs
// once (handshakes, buffers, batches) is taken out by comparing a short
// run with a long one: the difference per extra request is the
// per-request cost. The server runs in another process: only tressi's
// allocations are counted.
func TestLoopHTTPSAllocations(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("a 2 s run, whose allocations the race detector changes")
	}
	addr := helperTLSServer(t)
	measure := func(d time.Duration) (mallocs uint64, requests int64) {
		s := schedule(addr, 0, time.Millisecond)
		s.Model, s.Count = compile.Closed, 0
		s.Targets[0].Scheme, s.Targets[0].InsecureSkipVerify = "https", true
		for range 4 {
			s.Users = append(s.Users, compile.UserSpan{Start: 0, Stop: int64(d)})
		}
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		out, err := Run(t.Context(), s, Options{OutDir: t.TempDir() + "/run", Engine: EngineLoop})
		runtime.ReadMemStats(&after)
		if err != nil {
			t.Fatal(err)
		}
		if out.OK != out.Requests || out.Engine != EngineLoop {
			t.Fatalf("outcome %+v", out)
		}
		return after.Mallocs - before.Mallocs, out.Requests
	}
	m1, r1 := measure(300 * time.Millisecond)
	m2, r2 := measure(1500 * time.Millisecond)
	if r2-r1 < 1000 {
		t.Skipf("the machine is too busy to measure: %d and %d requests", r1, r2)
	}
	perRequest := float64(m2-m1) / float64(r2-r1)
	t.Logf("%d and %d requests, %d and %d allocations: %.3f per extra request", r1, r2, m1, m2, perRequest)
	if perRequest > 1.15 {
		t.Fatalf("%.2f allocations per request: more than crypto/tls's one per record read", perRequest)
	}
}

// exec changes no process-wide setting: the loop engine, which needs a P
// for each loop and one for the recorder, refuses to run on one P and
// says what to do (tressi's CLI raises it first: cli/process.go), where
// the fasthttp engine runs.
func TestLoopRefusesOneP(t *testing.T) {
	srv := serve(t, ok)
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	_, err := Run(context.Background(), schedule(srv.addr, 10, time.Millisecond), Options{OutDir: filepath.Join(t.TempDir(), "run")})
	var ie *InputError
	if !errors.As(err, &ie) || !strings.Contains(err.Error(), "GOMAXPROCS of 2 or more") {
		t.Fatalf("error %v, want an input error asking for GOMAXPROCS of 2", err)
	}
	if runtime.GOMAXPROCS(0) != 1 {
		t.Fatalf("Run changed GOMAXPROCS to %d", runtime.GOMAXPROCS(0))
	}
	_, rows := runPlan(t, schedule(srv.addr, 10, time.Millisecond), Options{Engine: EngineFasthttp})
	checkOneRowPerSlot(t, rows, 10)
}
