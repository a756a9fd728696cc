package exec

import (
	"sync/atomic"
	"testing"
	"time"

	"github.com/tressi/tressi/results"
)

// The hooks a capacity search uses: Observe sees every row, Watch can end
// the run early whatever thresholds.abort says, and Probe lands in the
// results' metadata.
func TestObserveWatchAndProbe(t *testing.T) {
	srv := serve(t, ok)
	s := schedule(srv.addr, 400, 10*time.Millisecond) // 4 s if nothing stops it
	var observed, okRows atomic.Int64
	var watched atomic.Int64
	opt := Options{
		Probe: `{"index":2}`,
		Observe: func(row *results.Row, ok bool) {
			observed.Add(1)
			if ok {
				okRows.Add(1)
			}
		},
		Watch: func(now int64, completed func() int64) string {
			watched.Add(1)
			if completed() >= 50 {
				return "p99: enough seen"
			}
			return ""
		},
	}
	out, rows := runPlan(t, s, opt)
	if !out.EarlyExit || len(out.ThresholdFailures) != 1 || out.ThresholdFailures[0] != "early_exit: p99: enough seen" {
		t.Fatalf("early exit %v, failures %v", out.EarlyExit, out.ThresholdFailures)
	}
	if int64(len(rows)) != observed.Load() || len(rows) != 400 {
		t.Fatalf("%d rows written, %d observed, want every one of 400", len(rows), observed.Load())
	}
	if okRows.Load() != out.OK || watched.Load() == 0 {
		t.Fatalf("observed %d ok rows, outcome %d; watched %d times", okRows.Load(), out.OK, watched.Load())
	}
	var notSent int
	for _, r := range rows {
		if r.Error == results.NotSent {
			notSent++
		}
	}
	if notSent == 0 {
		t.Fatal("the stop left no slot unsent")
	}
	r, err := results.Open(out.Dir + "/" + ResultsFile)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if r.Meta.Probe != `{"index":2}` {
		t.Fatalf("probe metadata %q", r.Meta.Probe)
	}
}
