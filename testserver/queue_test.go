package testserver

import (
	"sync"
	"testing"
	"time"
)

// The queue serves one request at a time: n requests sent at once with a
// service time d cannot all be answered before n × d, however fast the
// machine (a lower bound only, so a busy machine cannot fail it).
func TestQueueServesOneAtATime(t *testing.T) {
	_, base := start(t)
	const n, d = 20, 20 * time.Millisecond
	begin := time.Now()
	var wg sync.WaitGroup
	for range n {
		wg.Go(func() {
			status, _, body := do(t, "GET", base+"/queue?service=20ms", "", "")
			if status != 200 || string(body) != "ok\n" {
				t.Errorf("got %d %q", status, body)
			}
		})
	}
	wg.Wait()
	if took := time.Since(begin); took < n*d {
		t.Fatalf("%d requests of %v each took %v: the queue served some at once", n, d, took)
	}
}

func TestQueueRejectsBadService(t *testing.T) {
	_, base := start(t)
	for _, q := range []string{"?service=abc", "?service=-1ms", "?service=0s"} {
		status, _, body := do(t, "GET", base+"/queue"+q, "", "")
		if status != 400 || string(body) != "service must be a duration above 0, such as 500us\n" {
			t.Errorf("%s: got %d %q", q, status, body)
		}
	}
}

// The virtual queue: each arrival finishes one service time after the
// later of its arrival and the previous finish.
func TestFIFOAdmit(t *testing.T) {
	var q fifo
	for _, c := range []struct{ now, service, want int64 }{
		{100, 10, 110}, // idle: served at once
		{100, 10, 120}, // behind the first
		{105, 10, 130},
		{200, 5, 205}, // idle again
	} {
		if got := q.admit(c.now, c.service); got != c.want {
			t.Fatalf("admit(%d, %d) = %d, want %d", c.now, c.service, got, c.want)
		}
	}
}
