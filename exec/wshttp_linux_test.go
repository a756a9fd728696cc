package exec

import (
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/coder/websocket"
)

// loginServer issues a token on POST /login for any user but "mallory"
// (401), and upgrades /echo (coder/websocket, echoing) only with a token it
// issued, in Authorization: Bearer …; refused upgrades are counted.
type loginServer struct {
	addr     string
	mu       sync.Mutex
	tokens   map[string]bool
	refused  atomic.Int64
	upgraded atomic.Int64
	logins   map[string]int // by the connection's remote address
	slowSeen chan struct{}  // closed when the first "slow" login arrives
	slowOnce sync.Once
}

// loginPeers is how many logins came over each connection.
func (ls *loginServer) loginPeers() map[string]int {
	ls.mu.Lock()
	defer ls.mu.Unlock()
	return maps.Clone(ls.logins)
}

func startLoginServer(t *testing.T, cfg *tls.Config) *loginServer {
	t.Helper()
	ls := &loginServer{tokens: map[string]bool{}, logins: map[string]int{}, slowSeen: make(chan struct{})}
	var n atomic.Int64
	mux := http.NewServeMux()
	mux.HandleFunc("POST /login", func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if strings.Contains(string(body), "slow") {
			ls.slowOnce.Do(func() { close(ls.slowSeen) })
			select { // an answer that comes after the test's interrupt and grace
			case <-time.After(3 * time.Second):
			case <-r.Context().Done():
			}
		}
		if strings.Contains(string(body), "mallory") {
			http.Error(w, `{"error":"no"}`, http.StatusUnauthorized)
			return
		}
		tok := fmt.Sprintf("tok-%d", n.Add(1))
		ls.mu.Lock()
		ls.logins[r.RemoteAddr]++
		ls.tokens[tok] = true
		ls.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"user":%q,"token":%q}`, string(body), tok)
	})
	mux.HandleFunc("/echo", func(w http.ResponseWriter, r *http.Request) {
		tok, _ := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		ls.mu.Lock()
		ok := ls.tokens[tok]
		ls.mu.Unlock()
		if !ok {
			ls.refused.Add(1)
			http.Error(w, "no token", http.StatusForbidden)
			return
		}
		c, err := websocket.Accept(w, r, nil)
		if err != nil {
			return
		}
		ls.upgraded.Add(1)
		ctx, cancel := context.WithTimeout(r.Context(), 20*time.Second)
		defer cancel()
		for {
			typ, data, err := c.Read(ctx)
			if err != nil || c.Write(ctx, typ, data) != nil {
				return
			}
		}
	})
	srv := httptest.NewUnstartedServer(mux)
	if cfg != nil {
		srv.TLS = cfg
		srv.StartTLS()
	} else {
		srv.Start()
	}
	t.Cleanup(srv.Close)
	ls.addr = srv.Listener.Addr().String()
	return ls
}

const loginWSPlan = `
target "t" {
  url = "%s"
  %s
}
scenario "s" {
  step "login" {
    method  = "POST"
    path    = "/login"
    body    = "%s"
    capture = { token = json("token") }
  }
  step "connect" {
    connect = "/echo"
    headers = { Authorization = "Bearer ${captured.token}" }
  }
  step "msg" {
    send   = "m-${seq}"
    repeat = 2
    await {
      regex = "^m-"
    }
  }
  step "close" {
    close = 1000
  }
}
load {
  stage {
    duration = "500ms"
    rate     = 10
  }
}
`

// An HTTP login step before the connect: its captured token goes into the
// connect's Authorization header, and the server upgrades only with a
// token it issued. Every session has its rows: the login's 200, the
// upgrade's 101, the echoes, the close.
func TestWSHTTPLoginBeforeConnect(t *testing.T) {
	p := newPKI(t)
	cert, _, _ := p.issue(t, []string{"chat.test"}, time.Now().Add(-time.Hour), time.Now().Add(time.Hour), false)
	for _, tc := range []struct{ name, scheme, tls string }{
		{"http and ws", "http", ""},
		{"https and wss", "https", fmt.Sprintf("tls {\n    ca_file = %q\n    server_name = \"chat.test\"\n  }", p.caFile)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var cfg *tls.Config
			if tc.tls != "" {
				cfg = &tls.Config{Certificates: []tls.Certificate{cert}}
			}
			testLoginBeforeConnect(t, startLoginServer(t, cfg), tc.scheme, tc.tls)
		})
	}
}

func testLoginBeforeConnect(t *testing.T, ls *loginServer, scheme, tlsBlock string) {
	s := compilePlan(t, fmt.Sprintf(loginWSPlan, scheme+"://"+ls.addr, tlsBlock, "alice"), nil)
	rows, sum, _ := runWS(t, s)
	checkSessionRows(t, s, rows)
	for k, rs := range rows {
		got := []string{}
		for _, r := range rs {
			got = append(got, fmt.Sprintf("%s:%d:%s", r.Name, r.Status, r.Error))
		}
		want := []string{"s.login:200:", "s.connect:101:", "s.msg:200:", "s.msg:200:", "s.close:1000:"}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("slot %d rows %v, want %v", k, got, want)
		}
		if rs[1].Scheduled < rs[0].Scheduled+rs[0].Latency {
			t.Fatalf("slot %d: the connect was due before the login's answer: %+v", k, rs)
		}
	}
	if ls.upgraded.Load() != s.Count || ls.refused.Load() != 0 || sum.Sessions.Completed != s.Count {
		t.Fatalf("upgraded %d, refused %d, sessions %+v", ls.upgraded.Load(), ls.refused.Load(), sum.Sessions)
	}
}

// A login the server refuses (401) captures nothing: the connect, which
// needs the token, is capture_failed and never dials, and the rest of the
// session ws_closed.
func TestWSHTTPLoginRefused(t *testing.T) {
	ls := startLoginServer(t, nil)
	s := compilePlan(t, fmt.Sprintf(loginWSPlan, "http://"+ls.addr, "", "mallory"), nil)
	rows, _, _ := runWS(t, s)
	checkSessionRows(t, s, rows)
	for k, rs := range rows {
		got := []string{}
		for _, r := range rs {
			got = append(got, fmt.Sprintf("%s:%d:%s", r.Name, r.Status, r.Error))
		}
		want := []string{"s.login:401:", "s.connect:0:capture_failed", "s.msg:0:ws_closed", "s.msg:0:ws_closed", "s.close:0:ws_closed"}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("slot %d rows %v, want %v", k, got, want)
		}
	}
	if ls.upgraded.Load() != 0 || ls.refused.Load() != 0 {
		t.Fatalf("upgraded %d, refused %d: no connect should have been tried", ls.upgraded.Load(), ls.refused.Load())
	}
}

// An interrupt while logins are in flight: after the grace each login is
// interrupted, everything after it not_sent, and sessions not started yet
// not_sent whole; no connect is tried.
func TestWSHTTPLoginInterrupted(t *testing.T) {
	ls := startLoginServer(t, nil)
	s := compilePlan(t, fmt.Sprintf(loginWSPlan, "http://"+ls.addr, "", "slow"), nil)
	dir := t.TempDir() + "/run"
	stop := make(chan struct{})
	go func() { // once a login is in flight, however long the run took to start
		select {
		case <-ls.slowSeen:
		case <-time.After(20 * time.Second):
		}
		close(stop)
	}()
	out, err := Run(t.Context(), s, Options{OutDir: dir, Interrupt: stop, Grace: 200 * time.Millisecond})
	if err != nil || !out.Interrupted {
		t.Fatalf("outcome %+v, %v", out, err)
	}
	rows, _ := sessionRows(t, dir)
	checkSessionRows(t, s, rows)
	kinds := map[string]int{}
	for _, rs := range rows {
		for _, r := range rs {
			kinds[r.Name+":"+r.Error.String()]++
		}
	}
	if kinds["s.login:interrupted"] == 0 || kinds["s.connect:not_sent"] != int(s.Count) || ls.upgraded.Load() != 0 {
		t.Fatalf("rows %v, upgrades %d", kinds, ls.upgraded.Load())
	}
}

// A login on a target of its own whose server refuses the connection is
// connect_refused, with the reason in its sample; the connect, missing its
// token, is capture_failed and never dials. The steps after the connect
// need no target: they go on the connect's connection.
func TestWSHTTPLoginConnectRefused(t *testing.T) {
	ls := startLoginServer(t, nil)
	src := strings.Replace(fmt.Sprintf(loginWSPlan, "http://"+ls.addr, "", "alice"),
		"    method  = \"POST\"\n", "    target  = \"auth\"\n    method  = \"POST\"\n", 1)
	src = strings.Replace(src, "    connect = \"/echo\"\n", "    target  = \"t\"\n    connect = \"/echo\"\n", 1)
	src += "target \"auth\" {\n  url = \"http://127.0.0.1:1\"\n}\n"
	s := compilePlan(t, src, nil)
	dir := t.TempDir() + "/run"
	if _, err := Run(t.Context(), s, Options{OutDir: dir}); err != nil {
		t.Fatal(err)
	}
	rows, _ := sessionRows(t, dir)
	checkSessionRows(t, s, rows)
	for k, rs := range rows {
		if got := fmt.Sprint(rs[0].Name, rs[0].Error, rs[1].Name, rs[1].Error); got != fmt.Sprint("s.login", "connect_refused", "s.connect", "capture_failed") {
			t.Fatalf("slot %d: %s", k, got)
		}
	}
	ss := readSampleFile(t, dir)
	if len(ss) == 0 || ss[0].Error != "connect_refused" || !strings.Contains(ss[0].Detail, "refused") {
		t.Fatalf("samples %+v", ss)
	}
	if ls.upgraded.Load() != 0 || ls.refused.Load() != 0 {
		t.Fatalf("upgraded %d, refused %d: no connect should have been tried", ls.upgraded.Load(), ls.refused.Load())
	}
}

// pooledLoginPlan: sessions that log in over the "api" target's pooled
// connections (at most 2) before they connect to "chat".
const pooledLoginPlan = `
target "api" {
  url         = "http://%[1]s"
  connections = 2
}
target "chat" {
  url = "ws://%[1]s"
}
scenario "s" {
  %[2]s
  step "login" {
    target  = "api"
    method  = "POST"
    path    = "/login"
    body    = "alice"
    capture = { token = json("token") }
  }
  step "connect" {
    target  = "chat"
    connect = "/echo"
    headers = { Authorization = "Bearer ${captured.token}" }
  }
  step "close" {
    close = 1000
  }
}
load {
  stage {
    duration = "500ms"
    rate     = 40
  }
}
`

// A session's HTTP steps ride the loop's pool: 20 sessions log in over
// the api target's 2 connections, kept alive from one login to the next,
// so the server sees the logins come over no more than 2 connections,
// and every session still logs in and upgrades with its own token. So
// they do with connection = "session": a WebSocket session's own
// connection is its WebSocket one.
func TestWSHTTPLoginReusesPooledConnections(t *testing.T) {
	for _, conn := range []string{"", `connection = "session"`} {
		t.Run(fmt.Sprintf("%q", conn), func(t *testing.T) { testPooledLogin(t, conn) })
	}
}

func testPooledLogin(t *testing.T, conn string) {
	ls := startLoginServer(t, nil)
	s := compilePlan(t, fmt.Sprintf(pooledLoginPlan, ls.addr, conn), nil)
	rows, sum, dir := runWS(t, s)
	checkSessionRows(t, s, rows)
	if p := readMeta(t, dir).Protocols; p["api"]["http/1.1"] > 2 || p["chat"]["websocket"] != s.Count {
		t.Fatalf("meta.json protocols %v: want at most 2 http/1.1 connections to api, %d websocket to chat", p, s.Count)
	}
	for k, rs := range rows {
		if rs[0].Name != "s.login" || rs[0].Status != 200 || rs[1].Status != 101 {
			t.Fatalf("slot %d rows %+v: want the login's 200, then the upgrade's 101", k, rs)
		}
	}
	logins := ls.loginPeers()
	if len(logins) > 2 || int64(len(logins)) >= s.Count {
		t.Fatalf("%d sessions logged in over %d connections %v: want at most the target's 2", s.Count, len(logins), logins)
	}
	if ls.upgraded.Load() != s.Count || sum.Sessions.Completed != s.Count {
		t.Fatalf("upgraded %d of %d, sessions %+v", ls.upgraded.Load(), s.Count, sum.Sessions)
	}
}
