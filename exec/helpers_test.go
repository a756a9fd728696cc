package exec

import (
	"context"
	"net"
	"path/filepath"
	"sort"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tressi/tressi/compile"
	"github.com/tressi/tressi/results"
	"github.com/valyala/fasthttp"
)

// server is a real fasthttp server on a loopback port that counts requests.
type server struct {
	addr  string
	count atomic.Int64
}

func serve(t testing.TB, h func(ctx *fasthttp.RequestCtx)) *server {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &server{addr: ln.Addr().String()}
	srv := &fasthttp.Server{Handler: func(ctx *fasthttp.RequestCtx) {
		s.count.Add(1)
		h(ctx)
	}}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Shutdown() })
	return s
}

func ok(ctx *fasthttp.RequestCtx) { ctx.SetBodyString("ok") }

// literal is a splice without holes.
func literal(s string) compile.Splice { return compile.Splice{Segments: [][]byte{[]byte(s)}} }

// schedule is an open schedule of n GET / to addr, one every interval.
func schedule(addr string, n int, interval time.Duration) *compile.Schedule {
	s := &compile.Schedule{
		Name: "test", Model: compile.Open, Seed: 7, Duration: time.Duration(n) * interval, Hash: "h",
		Targets: []compile.Target{{Name: "t", Scheme: "http", Addr: addr, Host: addr, Connections: 64,
			Timeout: 2 * time.Second, ConnectTimeout: time.Second}},
		Requests: []compile.Request{{Name: "home", Method: "GET", URI: literal("/"), Static: true}},
		Entries:  []compile.Entry{{Name: "home", Weight: 1, Data: -1, Steps: []compile.Step{{Name: "home", Request: 0, Repeat: 1}}}},
	}
	slots := make([]compile.Slot, n)
	for k := range slots {
		slots[k] = compile.MakeSlot(int64(k)*int64(interval), 0)
	}
	return s.WithSlots(slots)
}

// run runs s into a temporary directory and reads every row back.
func runPlan(t testing.TB, s *compile.Schedule, opt Options) (*Outcome, []results.Row) {
	t.Helper()
	if opt.OutDir == "" {
		opt.OutDir = filepath.Join(t.TempDir(), "run")
	}
	out, err := Run(context.Background(), s, opt)
	if err != nil {
		t.Fatal(err)
	}
	return out, readResults(t, filepath.Join(opt.OutDir, ResultsFile))
}

// readResults reads a results file back, sorted by slot.
func readResults(t testing.TB, path string) []results.Row {
	t.Helper()
	r, err := results.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var rows []results.Row
	for {
		b, ok := r.Next()
		if !ok {
			break
		}
		for i := 0; i < b.Len; i++ {
			kind, _ := results.ParseErrorKind(b.ErrorNames[b.Error[i]])
			rows = append(rows, results.Row{Slot: b.Slot[i], Scheduled: b.Scheduled[i], Sent: b.Sent[i],
				Latency: b.Latency[i], Service: b.Service[i], Status: b.Status[i], Error: kind,
				BytesOut: b.BytesOut[i], BytesIn: b.BytesIn[i]})
			if b.Connect != nil {
				rows[len(rows)-1].Connect = b.Connect[i]
			}
		}
	}
	if r.Err() != nil || r.Truncated != nil {
		t.Fatalf("reading results: %v / %v", r.Err(), r.Truncated)
	}
	sort.Slice(rows, func(i, j int) bool { return rows[i].Slot < rows[j].Slot })
	return rows
}

// checkOneRowPerSlot fails unless rows hold slots 0..n-1 exactly once.
func checkOneRowPerSlot(t testing.TB, rows []results.Row, n int) {
	t.Helper()
	if len(rows) != n {
		t.Fatalf("%d rows, want %d", len(rows), n)
	}
	for k, r := range rows {
		if r.Slot != uint64(k) {
			t.Fatalf("row %d has slot %d: slots missing or repeated", k, r.Slot)
		}
	}
}

func countErrors(rows []results.Row) map[results.ErrorKind]int {
	m := map[results.ErrorKind]int{}
	for _, r := range rows {
		m[r.Error]++
	}
	return m
}

// quantileOf is the exact q-quantile (0–1) of vs by the nearest-rank method.
func quantileOf(vs []int64, q float64) int64 {
	s := append([]int64(nil), vs...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	i := int(q*float64(len(s))+0.999999) - 1
	return s[max(0, min(i, len(s)-1))]
}
