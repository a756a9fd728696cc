package exec

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tressi/tressi/compile"
	"github.com/tressi/tressi/internal/uring"
	"github.com/tressi/tressi/results"
	"github.com/valyala/fasthttp"
)

// A closed HTTP/1.1 run sends and receives through io_uring with
// TRESSI_POLLER=io_uring where the kernel has it, and through epoll by
// default, with the same
// rows either way: responses larger than a provided buffer (several
// completions each), a server closing every fifth connection after its
// response (the ring's connection closed, a fresh one dialed and moved to
// it), every row ok with its sent and received instants in order and its
// bytes counted. meta.json says how many connections ran on the ring.
func TestClosedRunOnEitherPoller(t *testing.T) {
	body := strings.Repeat("0123456789abcdef", 600) // 9,600 bytes: five 2 KiB buffers
	srv := serve(t, func(ctx *fasthttp.RequestCtx) {
		if ctx.ID()%5 == 0 {
			ctx.SetConnectionClose()
		}
		ctx.SetBodyString(body)
	})
	ringHere := false
	if r, err := uring.New(8, 16); err == nil {
		r.Close()
		ringHere = true
	}
	for _, poller := range []string{"", "epoll", "io_uring"} {
		t.Run("poller="+poller, func(t *testing.T) {
			t.Setenv("TRESSI_POLLER", poller)
			s := schedule(srv.addr, 0, time.Millisecond)
			s.Model, s.Count = compile.Closed, 0
			s.Targets[0].Connections = 4
			for range 4 {
				s.Users = append(s.Users, compile.UserSpan{Start: 0, Stop: int64(400 * time.Millisecond)})
			}
			dir := filepath.Join(t.TempDir(), "run")
			out, rows := runPlan(t, s, Options{Engine: EngineLoop, OutDir: dir})
			if len(rows) < 20 || out.OK != int64(len(rows)) {
				t.Fatalf("%d rows, outcome %+v: want every one ok, and more than 20", len(rows), out)
			}
			for i, r := range rows {
				if r.Error != results.None || r.Status != 200 || r.Sent < r.Scheduled || r.Service <= 0 || r.Latency < r.Service {
					t.Fatalf("row %d: %+v", i, r)
				}
				if r.BytesIn < uint32(len(body)) || r.BytesIn > uint32(len(body))+300 || r.BytesOut == 0 {
					t.Fatalf("row %d: %d bytes in (the body is %d), %d out", i, r.BytesIn, len(body), r.BytesOut)
				}
			}
			m := readMeta(t, dir)
			switch {
			case poller != "io_uring" && m.IOUringConns != 0:
				t.Fatalf("TRESSI_POLLER=%s: meta.json says %d connections ran on io_uring", poller, m.IOUringConns)
			case poller == "io_uring" && ringHere && m.IOUringConns <= 4:
				// 4 connections, and a fresh one after each fifth response.
				t.Fatalf("io_uring is here, yet meta.json says %d connections ran on it", m.IOUringConns)
			}
		})
	}
}
