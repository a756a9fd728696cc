// Helpers shared by the Linux-only tests of exec.

package exec

import (
	"context"
	"crypto/tls"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/tressi/tressi/compile"
)

// checkClosedSessionRows: in the closed model the sessions are numbered as
// they start; each has exactly the rows its program schedules.
func checkClosedSessionRows(t *testing.T, s *compile.Schedule, rows map[uint64][]namedRow) {
	t.Helper()
	if len(rows) == 0 {
		t.Fatal("no session ran")
	}
	for k, rs := range rows {
		if want := compile.SessionRows(&s.Entries[s.Pick(k)]); int64(len(rs)) != want {
			t.Fatalf("session %d has %d rows, its program schedules %d: %+v", k, len(rs), want, rs)
		}
		if k >= uint64(len(rows)) {
			t.Fatalf("session numbers are not 0..%d: %d", len(rows)-1, k)
		}
	}
}

// startCoderEchoLive is startCoderEcho that also keeps in most the most
// connections it held at once.
func startCoderEchoLive(t *testing.T, cfg *tls.Config, conns, most *atomic.Int64) string {
	t.Helper()
	var live atomic.Int64
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c, err := websocket.Accept(w, r, nil)
		if err != nil {
			return
		}
		conns.Add(1)
		if most != nil {
			n := live.Add(1)
			defer live.Add(-1)
			for m := most.Load(); n > m && !most.CompareAndSwap(m, n); m = most.Load() {
			}
		}
		ctx, cancel := context.WithTimeout(r.Context(), 30*time.Second)
		defer cancel()
		for {
			typ, data, err := c.Read(ctx)
			if err != nil {
				return
			}
			if err := c.Write(ctx, typ, data); err != nil {
				return
			}
		}
	}))
	srv.Config.ErrorLog = log.New(io.Discard, "", 0) // failed handshakes are some tests' point
	if cfg == nil {
		srv.Start()
	} else {
		srv.TLS = cfg
		srv.StartTLS()
	}
	t.Cleanup(srv.Close)
	return srv.Listener.Addr().String()
}
