package exec

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/tressi/tressi/results"
	"github.com/tressi/tressi/testserver"
)

// timeoutAfterFastPlan is one session on one connection: four quick
// requests, 60 ms apart, then one the server answers after 2 s, past the
// target's 400 ms timeout, then one more: it is scheduled at the instant
// the slow one timed out. proto is the target's protocol line.
const timeoutAfterFastPlan = `
target "t" {
  url         = "http://%s"
  %s
  connections = 1
  timeout     = "400ms"
}
scenario "s" {
  step "fast" {
    path   = "/"
    repeat = 4
    think  = "60ms"
  }
  step "slow" {
    path = "/delay/2000"
  }
  step "after" {
    path = "/"
  }
}
load {
  stage {
    duration = "100ms"
    rate     = 10
  }
}
`

// A request's timeout counts from its own start, on a connection that
// carried others before it: the loop's timer for the connection, armed
// for the first request's deadline, fires while the slow request still
// has time and moves on to its deadline (looptimers_linux.go), so the slow
// request is a timeout at its deadline, not earlier (the first request's)
// nor at the answer 2 s on: the next step is scheduled then. The same over HTTP/2, where the
// connection's timer stands for its streams'.
func TestTimeoutAfterRequestsOnOneConnection(t *testing.T) {
	h1 := startTarget(t, testserver.Options{})
	h2c := serveH2C(t, func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.URL.Path, "/delay/") {
			select {
			case <-time.After(2 * time.Second):
			case <-r.Context().Done():
			}
		}
		w.Write([]byte("ok"))
	})
	for _, tc := range []struct {
		name, addr, proto string
		engines           []string
	}{
		{"http1", h1, "", []string{EngineFasthttp, EngineLoop}},
		{"h2c", h2c.addr, `protocol = "h2c"`, []string{EngineLoop}},
	} {
		for _, engine := range tc.engines {
			t.Run(tc.name+"/"+engine, func(t *testing.T) {
				s := compilePlan(t, fmt.Sprintf(timeoutAfterFastPlan, tc.addr, tc.proto), nil)
				timeout := s.Targets[0].Timeout
				out, rows := runPlan(t, s, Options{Engine: engine})
				kinds := countErrors(rows)
				if len(rows) != 6 || kinds[results.None] != 5 || kinds[results.Timeout] != 1 {
					t.Fatalf("%s: %d rows, errors %v: want 5 answered and 1 timeout", out.Engine, len(rows), kinds)
				}
				slow, next := rows[0], rows[0]
				for _, r := range rows {
					if r.Error == results.Timeout {
						slow = r
					}
					if r.Scheduled > next.Scheduled {
						next = r
					}
				}
				// Both engines count a timeout from the instant the request
				// was due (a step: ready), which is the row's scheduled_ns.
				// The loop fires timers a burst late at most; a second is an
				// honest margin on a busy machine.
				waited := time.Duration(next.Scheduled - slow.Scheduled)
				if slow.Sent < 0 || waited < timeout || waited > timeout+time.Second {
					t.Fatalf("%s: the slow request was due at %v and timed out %v later, want %v (within a second); rows %+v",
						out.Engine, time.Duration(slow.Scheduled), waited, timeout, rows)
				}
			})
		}
	}
}
