package exec

import (
	"fmt"
	"runtime"
	"testing"

	"github.com/tressi/tressi/compile"
	"github.com/tressi/tressi/testserver"
	"github.com/tressi/tressi/testserver/child"
)

// runHelperTarget is the built-in target in a process of its own
// (helperServer(t, "target"), or "target-tls" over TLS with a certificate
// nobody trusts), so allocation counts see only tressi's side.
func runHelperTarget(overTLS bool) {
	ln := child.Listen(overTLS)
	go testserver.New(testserver.Options{}).Serve(ln)
	child.Serve(ln)
}

// In steady state a WebSocket frame sent, its echo received and matched,
// and its row recorded allocate nothing in tressi: 20 sessions each send
// frames at a fixed pace, every one awaited (by content, so the matcher
// renders its value) and marked (so every frame received is scanned for
// marks). Two runs, of 100 and of 500 frames per session,
// differ in 8,000 rows; what the run costs whatever its length (the plan,
// the files, the sessions' set-up) cancels out, after a first run that
// fills the process's caches, and the allocations the extra rows cost
// must stay far below one per row.
//
// Over wss:// crypto/tls allocates each time its record reader reads from
// the connection (it boxes a reader around it, conn.go readFromUntil):
// once per record received, which no caller can avoid. tlsloop spares it
// the read that would find no record (and allocate for it), which took
// this from 1.98 to 0.96 per frame. The wss case holds it there: at most
// 1.2.
func TestWSLoopAllocatesNothingPerFrame(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("2 s runs, counting allocations (the race detector's among them)")
	}
	for _, tc := range []struct {
		name, helper, scheme, tls string
		most                      float64
	}{
		{"ws", "target", "ws", "", 0.05},
		{"wss", "target-tls", "wss", "tls {\n    insecure_skip_verify = true\n  }", 1.2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			addr := tc.scheme + "://" + helperServer(t, tc.helper)
			wsAllocRun(t, addr, tc.tls, 100) // the first run fills the process's caches (JSON encoders, sync.Once values)
			rows100, mallocs100 := wsAllocRun(t, addr, tc.tls, 100)
			rows500, mallocs500 := wsAllocRun(t, addr, tc.tls, 500)
			perRow := (float64(mallocs500) - float64(mallocs100)) / float64(rows500-rows100)
			t.Logf("%d rows: %d allocations; %d rows: %d; %.3f allocations per extra row", rows100, mallocs100, rows500, mallocs500, perRow)
			if perRow > tc.most {
				t.Fatalf("%.3f allocations per row: something on the WebSocket frame path allocates", perRow)
			}
		})
	}
}

// wsAllocRun runs the echo plan with n frames per session, and returns its
// rows and what the run allocated.
func wsAllocRun(t *testing.T, addr, tlsBlock string, n int) (rows int64, mallocs uint64) {
	t.Helper()
	src := fmt.Sprintf(`
target "t" {
  url         = "%s"
  connections = 20
  %s
}
scenario "echo" {
  step "connect" {
    connect = "/ws/echo"
  }
  step "msg" {
    send   = "m-${seq} ${mark}"
    repeat = %d
    think  = "2ms"
    wait   = false
    await {
      regex = "^m-"
    }
  }
  step "pong" {
    send   = jsonencode({ n = "n-${seq}" })
    repeat = 20
    await {
      json = { n = "n-${seq}" }
    }
  }
  step "close" {
    close = 1000
  }
}
load {
  stage {
    duration = "100ms"
    rate     = 200
  }
}
`, addr, tlsBlock, n)
	s := compilePlan(t, src, nil)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	out, err := Run(t.Context(), s, Options{OutDir: t.TempDir() + "/run"})
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	if out.Requests != s.Count*compile.SessionRows(&s.Entries[0]) || out.OK != out.Requests {
		t.Fatalf("outcome %+v: want every row ok", out)
	}
	return out.Requests, after.Mallocs - before.Mallocs
}
