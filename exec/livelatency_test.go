package exec

import (
	"strings"
	"sync/atomic"
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
	live := results.Thresholds{P99: 800 * time.Millisecond, LiveWindow: time.Second, LiveDelay: 500 * time.Millisecond,
		LiveMinCount: 20, Abort: true}
	for _, tc := range []struct {
		name   string
		th     results.Thresholds
		slowAt int64 // requests after which the server answers in 1.5 s; 0: never
		stop   bool
	}{
		{"slow server stops the run", live, 100, true},
		{"fast server runs to the end", live, 0, false},
		{"max judged live", results.Thresholds{Max: 1200 * time.Millisecond, LiveWindow: time.Second, LiveMinCount: 20, Abort: true}, 100, true},
		{"without live_window only the end judges", results.Thresholds{P99: 800 * time.Millisecond, Abort: true}, 100, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var seen atomic.Int64
			srv := serve(t, func(ctx *fasthttp.RequestCtx) {
				if n := seen.Add(1); tc.slowAt > 0 && n > tc.slowAt {
					time.Sleep(1500 * time.Millisecond)
				}
			})
			// 4 s at 500/s: the slow answers come from 1.7 s on, and reach
			// the live window within 1.5 s more (a sender hands its rows
			// to the recorder within half a second, the recorder
			// publishes the window once a second).
			const n = 2000
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
