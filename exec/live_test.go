package exec

import (
	"sync"
	"testing"
	"time"

	"github.com/tressi/tressi/results"
	"github.com/valyala/fasthttp"
)

// Started hands a live view the endpoint names the rows index and gauges
// that follow the senders: read after the run, they count what it sent.
func TestStartedGauges(t *testing.T) {
	srv := serve(t, ok)
	s := schedule(srv.addr, 200, 5*time.Millisecond)
	var (
		mu   sync.Mutex
		live LiveRun
		seen []Gauges
	)
	stop := make(chan struct{})
	var wg sync.WaitGroup
	opt := Options{Started: func(l LiveRun) {
		mu.Lock()
		live = l
		mu.Unlock()
		wg.Add(1)
		go func() { // read from another goroutine while the run goes, as a dashboard does
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				case <-time.After(50 * time.Millisecond):
					g := l.Gauges()
					mu.Lock()
					seen = append(seen, g)
					mu.Unlock()
				}
			}
		}()
	}}
	out, _ := runPlan(t, s, opt)
	close(stop)
	wg.Wait()
	if live.Gauges == nil || len(live.Endpoints) != 1 || live.Endpoints[0] != s.Requests[0].Name {
		t.Fatalf("live run %+v, want the endpoint %q", live, s.Requests[0].Name)
	}
	if live.RunID != out.RunID || !live.Start.Equal(out.Start) {
		t.Fatalf("live run %s from %v, outcome %s from %v", live.RunID, live.Start, out.RunID, out.Start)
	}
	end := live.Gauges()
	if end.Sent != out.Sent || end.Done != out.Requests || end.Failed != out.Requests-out.OK {
		t.Fatalf("gauges after the run %+v; outcome sent %d, requests %d, ok %d", end, out.Sent, out.Requests, out.OK)
	}
	if len(seen) == 0 {
		t.Fatal("no gauges were read while the run went")
	}
	for i := 1; i < len(seen); i++ {
		if seen[i].Now < seen[i-1].Now || seen[i].Sent < seen[i-1].Sent {
			t.Fatalf("gauges went back: %+v then %+v", seen[i-1], seen[i])
		}
	}
}

// The gauges carry the live thresholds failed so far, for a dashboard.
func TestGaugesCarryLiveFailures(t *testing.T) {
	srv := serve(t, func(ctx *fasthttp.RequestCtx) { ctx.SetStatusCode(503) })
	s := schedule(srv.addr, 50, time.Millisecond)
	s.Thresholds = results.Thresholds{StatusCodes: []int{503}} // abort false: the run goes on
	var live LiveRun
	runPlan(t, s, Options{Started: func(l LiveRun) { live = l }})
	if f := live.Gauges().Failures; len(f) != 1 || f[0] != "status_codes: got status 503" {
		t.Fatalf("failures %q", f)
	}
}
