package exec

import (
	"strings"
	"testing"
	"time"

	"github.com/valyala/fasthttp"

	"github.com/tressi/tressi/results"
)

// The latency limits judged live: a server that turns slow stops the run
// once the window's p99 is over the limit (after the delay, with enough
// responses); a fast one runs to the end, and the verdict stays the one
// over every row.
func TestLiveLatencyThresholds(t *testing.T) {
	// Limits with seconds of margin: a busy machine's fast answers stay far
	// below them, the slow server's far above.
	live := results.Thresholds{P99: 400 * time.Millisecond, LiveWindow: time.Second, LiveDelay: 500 * time.Millisecond,
		LiveMinCount: 20, Abort: true}
	for _, tc := range []struct {
		name   string
		th     results.Thresholds
		slowAt int64 // requests after which the server answers in 1 s; 0: never
		stop   bool
	}{
		{"slow server stops the run", live, 200, true},
		{"fast server runs to the end", live, 0, false},
		{"max judged live", results.Thresholds{Max: 800 * time.Millisecond, LiveWindow: time.Second, LiveMinCount: 20, Abort: true}, 200, true},
		{"without live_window only the end judges", results.Thresholds{P99: 400 * time.Millisecond, Abort: true}, 200, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := serve(t, func(ctx *fasthttp.RequestCtx) {
				if tc.slowAt > 0 && int64(ctx.ID()) > tc.slowAt {
					time.Sleep(time.Second)
				}
			})
			const n = 1000 // 2 s at 500/s
			s := schedule(srv.addr, n, 2*time.Millisecond)
			s.Thresholds = tc.th
			out, rows := runPlan(t, s, Options{Grace: 500 * time.Millisecond})
			checkOneRowPerSlot(t, rows, n)
			if out.EarlyExit != tc.stop {
				t.Fatalf("early exit %v, want %v; failures %v", out.EarlyExit, tc.stop, out.ThresholdFailures)
			}
			if !tc.stop {
				return
			}
			if ns := countErrors(rows)[results.NotSent]; ns == 0 {
				t.Fatal("the stop left no slot unsent")
			}
			want := "early_exit: p99: "
			if tc.th.Max > 0 {
				want = "early_exit: max: "
			}
			found := false
			for _, f := range out.ThresholdFailures {
				found = found || (strings.HasPrefix(f, want) && strings.Contains(f, "over the last 1s"))
			}
			if !found {
				t.Fatalf("failures %v lack %q…over the last 1s", out.ThresholdFailures, want)
			}
		})
	}
}
