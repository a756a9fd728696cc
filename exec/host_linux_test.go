package exec

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/tressi/tressi/results"
)

// hostServer is Go's HTTP server (HTTP/1.1 and h2c) that keeps every Host it
// was asked for, by protocol, and upgrades /ws to a WebSocket that answers
// one message.
type hostServer struct {
	addr  string
	mu    sync.Mutex
	hosts map[string]int // "HTTP/1.1 shop.example" → requests
}

func serveHosts(t *testing.T) *hostServer {
	t.Helper()
	s := &hostServer{hosts: map[string]int{}}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s.addr = ln.Addr().String()
	srv := &http.Server{Protocols: new(http.Protocols), Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.hosts[r.Proto+" "+r.Host]++
		s.mu.Unlock()
		if r.URL.Path != "/ws" {
			w.Write([]byte("ok"))
			return
		}
		c, err := websocket.Accept(w, r, nil)
		if err != nil {
			return
		}
		ctx, cancel := context.WithTimeout(r.Context(), 30*time.Second)
		defer cancel()
		if typ, data, err := c.Read(ctx); err == nil {
			c.Write(ctx, typ, data)
		}
		c.Close(websocket.StatusNormalClosure, "")
	})}
	srv.Protocols.SetHTTP1(true)
	srv.Protocols.SetUnencryptedHTTP2(true)
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return s
}

func (s *hostServer) seen() map[string]int {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := s.hosts
	s.hosts = map[string]int{}
	return out
}

// A plan's Host header names the virtual host the server sees, on both
// engines, over HTTP/1.1 and as HTTP/2's :authority, from the target's
// headers or an endpoint's; without one the server sees the URL's host.
func TestHostHeaderReachesTheServer(t *testing.T) {
	srv := serveHosts(t)
	plan := func(protocol, targetHeaders, endpointHeaders string) string {
		return fmt.Sprintf(`
target "t" {
  url         = "http://%s"
  %s
  connections = 2
  timeout     = "30s"
  headers     = %s
}
endpoint "home" {
  path    = "/"
  headers = %s
}
load {
  stage {
    duration = "100ms"
    rate     = 100
  }
}
`, srv.addr, protocol, targetHeaders, endpointHeaders)
	}
	for _, tc := range []struct {
		name, engine, protocol, target, endpoint, want string
	}{
		{"endpoint header, loop", EngineLoop, "", `{}`, `{ Host = "shop.example" }`, "HTTP/1.1 shop.example"},
		{"endpoint header, fasthttp", EngineFasthttp, "", `{}`, `{ Host = "shop.example" }`, "HTTP/1.1 shop.example"},
		{"target header with a port", EngineLoop, "", `{ host = "api.example:8443" }`, `{}`, "HTTP/1.1 api.example:8443"},
		{"the endpoint's replaces the target's", EngineFasthttp, "", `{ Host = "api.example" }`, `{ HOST = "shop.example" }`, "HTTP/1.1 shop.example"},
		{"h2c :authority", EngineLoop, `protocol = "h2c"`, `{}`, `{ Host = "shop.example" }`, "HTTP/2.0 shop.example"},
		{"no Host header", EngineLoop, "", `{}`, `{}`, "HTTP/1.1 " + srv.addr},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := compilePlan(t, plan(tc.protocol, tc.target, tc.endpoint), nil)
			out, rows := runPlan(t, s, Options{Engine: tc.engine})
			if out.OK != int64(len(rows)) || len(rows) != 10 {
				t.Fatalf("%d rows, outcome %+v", len(rows), out)
			}
			if got := srv.seen(); len(got) != 1 || got[tc.want] != 10 {
				t.Fatalf("the server saw %v, want 10 × %q", got, tc.want)
			}
		})
	}
}

// A connect step's Host header replaces the upgrade request's own: one Host
// line, the plan's (a second one makes servers answer 400).
func TestHostHeaderOfAWebSocketConnect(t *testing.T) {
	srv := serveHosts(t)
	s := compilePlan(t, fmt.Sprintf(`
target "t" {
  url     = "ws://%s"
  timeout = "30s"
}
scenario "chat" {
  step "connect" {
    connect = "/ws"
    headers = { Host = "chat.example" }
  }
  step "hello" {
    send = "hello"
    await {
      regex = "^hello$"
    }
  }
  step "close" {
    close = 1000
  }
}
load {
  stage {
    duration = "100ms"
    rate     = 30
  }
}
`, srv.addr), nil)
	rows, _, _ := runWS(t, s)
	checkSessionRows(t, s, rows)
	for k, rs := range rows {
		for _, r := range rs {
			if r.Error != results.None {
				t.Fatalf("session %d: row %+v", k, r)
			}
		}
	}
	if got := srv.seen(); len(got) != 1 || got["HTTP/1.1 chat.example"] != len(rows) {
		t.Fatalf("the server saw %v, want %d × chat.example", got, len(rows))
	}
}
