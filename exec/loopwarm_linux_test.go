package exec

import (
	"bufio"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tressi/tressi/compile"
	"github.com/tressi/tressi/results"
)

// warmServer answers every request with 200 on kept-alive connections and
// says how many connections it accepted before the first request came.
type warmServer struct {
	addr                string
	accepted, requested atomic.Int64
	mu                  sync.Mutex
	beforeFirst         int64 // accepted when the first request arrived; -1 before
}

func newWarmServer(t *testing.T) *warmServer {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	w := &warmServer{addr: ln.Addr().String(), beforeFirst: -1}
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			w.accepted.Add(1)
			go w.serve(c)
		}
	}()
	return w
}

func (w *warmServer) serve(c net.Conn) {
	defer c.Close()
	br := bufio.NewReader(c)
	for {
		req, err := http.ReadRequest(br)
		if err != nil {
			return
		}
		w.mu.Lock()
		if w.beforeFirst < 0 {
			w.beforeFirst = w.accepted.Load()
		}
		w.mu.Unlock()
		w.requested.Add(1)
		req.Body.Close()
		if _, err := c.Write([]byte("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")); err != nil {
			return
		}
	}
}

// The loop opens a target's connections before instant zero: as many as
// the target allows, no more than there are slots; their rows carry no
// connect_ns (no request waited for them) and meta.json says what the
// warm-up opened.
func TestWarmUpOpensConnectionsBeforeTheFirstRequest(t *testing.T) {
	for _, c := range []struct {
		name         string
		conns, slots int
		want         int64
	}{
		{"connections below slots", 4, 40, 4},
		{"slots below connections", 64, 3, 3},
	} {
		t.Run(c.name, func(t *testing.T) {
			srv := newWarmServer(t)
			s := schedule(srv.addr, c.slots, 2*time.Millisecond)
			s.Targets[0].Connections = c.conns
			out, rows := runPlan(t, s, Options{Engine: EngineLoop})
			checkOneRowPerSlot(t, rows, c.slots)
			if out.OK != int64(c.slots) {
				t.Fatalf("outcome %+v", out)
			}
			m := readMeta(t, out.Dir)
			if m.Warmup == nil || m.Warmup.Connections != c.want {
				t.Fatalf("meta.json warmup %+v, want %d connections", m.Warmup, c.want)
			}
			srv.mu.Lock()
			before := srv.beforeFirst
			srv.mu.Unlock()
			if before != c.want {
				t.Errorf("the server had accepted %d connections when the first request came, want %d", before, c.want)
			}
			if got := srv.accepted.Load(); got != c.want {
				t.Errorf("the server accepted %d connections in all, want %d (the warm-up's, reused)", got, c.want)
			}
			for _, r := range rows {
				if r.Connect != 0 {
					t.Fatalf("row %+v: a warm-up connection's request waited for no connect", r)
				}
			}
		})
	}
}

// A warm-up that cannot connect records nothing of its own: every slot is
// one row, and the run's own dials say why.
func TestWarmUpFailureLeavesTheRowsToTheRun(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close() // nothing listens there now: connections are refused
	s := schedule(addr, 10, time.Millisecond)
	s.Targets[0].Connections = 4
	out, rows := runPlan(t, s, Options{Engine: EngineLoop})
	checkOneRowPerSlot(t, rows, 10)
	for _, r := range rows {
		if r.Error != results.ConnectRefused {
			t.Fatalf("row %+v, want connect_refused", r)
		}
	}
	if m := readMeta(t, out.Dir); m.Warmup != nil {
		t.Fatalf("meta.json warmup %+v after a warm-up that opened nothing", m.Warmup)
	}
}

// Sessions with their own connections open them as they start: nothing
// is warmed for a target only they use.
func TestWarmUpLeavesSessionConnectionsAlone(t *testing.T) {
	srv := newWarmServer(t)
	s := schedule(srv.addr, 5, 5*time.Millisecond)
	s.Entries[0].Scenario = true
	s.Entries[0].Connection = compile.ConnectionSession
	s.Targets[0].Connection = compile.ConnectionSession
	out, rows := runPlan(t, s, Options{Engine: EngineLoop})
	checkOneRowPerSlot(t, rows, 5)
	if m := readMeta(t, out.Dir); m.Warmup != nil {
		t.Fatalf("meta.json warmup %+v for a session-only target", m.Warmup)
	}
	for _, r := range rows {
		if r.Error != results.None || r.Connect <= 0 {
			t.Fatalf("row %+v: each session opens its own connection", r)
		}
	}
}
