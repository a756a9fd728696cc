package testserver

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/valyala/fasthttp"
)

// start runs a server on loopback for one test, with a plain net/http client:
// the target must work with any client, not only fasthttp's.
func start(t *testing.T, opts ...Options) (*Server, string) {
	t.Helper()
	s, addr, err := StartLoopback(t, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return s, "http://" + addr
}

func do(t *testing.T, method, url, contentType, body string, header ...string) (int, http.Header, []byte) {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, resp.Header, b
}

func TestRoutes(t *testing.T) {
	_, base := start(t, Options{MaxDelay: 300 * time.Millisecond, MaxBytes: 200 << 10})
	tests := []struct {
		name, method, path string
		status             int
		body               string // exact body, when set
		bodyLen            int    // body length, when body is unset and bodyLen > 0
		minTime            time.Duration
	}{
		{"root", "GET", "/", 200, "ok\n", 0, 0},
		{"root head", "HEAD", "/", 200, "", 0, 0},
		{"root post", "POST", "/", 405, "method not allowed\n", 0, 0},
		{"status 200", "GET", "/status/200", 200, "OK\n", 0, 0},
		{"status 418", "GET", "/status/418", 418, "I'm a teapot\n", 0, 0},
		{"status 503", "GET", "/status/503", 503, "Service Unavailable\n", 0, 0},
		{"status 599", "GET", "/status/599", 599, "Unknown Status Code\n", 0, 0},
		{"status 204", "GET", "/status/204", 204, "", 0, 0},
		{"status 600", "GET", "/status/600", 400, "status must be a number in 100..599\n", 0, 0},
		{"status 99", "GET", "/status/99", 400, "status must be a number in 100..599\n", 0, 0},
		{"status word", "GET", "/status/abc", 400, "status must be a number in 100..599\n", 0, 0},
		{"status empty", "GET", "/status/", 400, "status must be a number in 100..599\n", 0, 0},
		{"delay", "GET", "/delay/100", 200, "ok\n", 0, 100 * time.Millisecond},
		{"delay clamped", "GET", "/delay/60000", 200, "ok\n", 0, 300 * time.Millisecond},
		{"delay bad", "GET", "/delay/-1", 400, "delay must be a whole number of milliseconds\n", 0, 0},
		{"bytes 0", "GET", "/bytes/0", 200, "", 0, 0},
		{"bytes 70", "GET", "/bytes/70", 200, string(Payload(70)), 0, 0},
		{"bytes streamed", "GET", "/bytes/150000", 200, string(Payload(150000)), 0, 0},
		{"bytes clamped", "GET", "/bytes/999999999", 200, "", 200 << 10, 0},
		{"bytes bad", "GET", "/bytes/1k", 400, "size must be a whole number of bytes\n", 0, 0},
		{"login get", "GET", "/login", 405, "method not allowed\n", 0, 0},
		{"me anonymous", "GET", "/me", 401, "{\"error\":\"missing bearer token\"}\n", 0, 0},
		{"not found", "GET", "/nope", 404, "not found\n", 0, 0},
		{"prefix is not a route", "GET", "/echoes", 404, "not found\n", 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t0 := time.Now()
			status, _, body := do(t, tt.method, base+tt.path, "", "")
			if status != tt.status {
				t.Errorf("status = %d, want %d (body %q)", status, tt.status, body)
			}
			if tt.bodyLen > 0 {
				if len(body) != tt.bodyLen || !bytes.Equal(body, Payload(tt.bodyLen)) {
					t.Errorf("body: %d bytes, want %d bytes of the payload", len(body), tt.bodyLen)
				}
			} else if string(body) != tt.body {
				t.Errorf("body = %.80q, want %.80q", body, tt.body)
			}
			if el := time.Since(t0); el < tt.minTime || (tt.minTime > 0 && el > tt.minTime+2*time.Second) {
				t.Errorf("took %v, want about %v", el, tt.minTime)
			}
		})
	}
}

// TestStatusInterim checks that /status/1xx really sends a 1xx: net/http
// would wait for a final response, so read the status line off the wire.
func TestStatusInterim(t *testing.T) {
	_, base := start(t)
	conn, err := net.Dial("tcp", strings.TrimPrefix(base, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(5 * time.Second))
	if _, err := io.WriteString(conn, "GET /status/102 HTTP/1.1\r\nHost: x\r\n\r\n"); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(conn).ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(line, "HTTP/1.1 102 ") {
		t.Fatalf("status line %q, want 102", line)
	}
}

func TestEcho(t *testing.T) {
	_, base := start(t)
	status, hdr, body := do(t, "PUT", base+"/echo?a=1&b=2", "text/plain", "hello", "X-Trace", "abc")
	if status != 200 || !strings.HasPrefix(hdr.Get("Content-Type"), "application/json") {
		t.Fatalf("status %d, content type %q", status, hdr.Get("Content-Type"))
	}
	var rep echoReply
	if err := json.Unmarshal(body, &rep); err != nil {
		t.Fatalf("%v: %s", err, body)
	}
	if rep.Method != "PUT" || rep.URI != "/echo?a=1&b=2" || rep.Body != "hello" {
		t.Errorf("echo = %+v", rep)
	}
	if got := rep.Headers["X-Trace"]; len(got) != 1 || got[0] != "abc" {
		t.Errorf("X-Trace = %q in %v", got, rep.Headers)
	}
	if got := rep.Headers["Content-Type"]; len(got) != 1 || got[0] != "text/plain" {
		t.Errorf("Content-Type = %q", got)
	}

	_, _, body = do(t, "POST", base+"/echo", "application/octet-stream", "\xff\x00\xfe")
	rep = echoReply{}
	if err := json.Unmarshal(body, &rep); err != nil || rep.BodyBase64 != "/wD+" || rep.Body != "" {
		t.Errorf("binary echo = %+v (%v)", rep, err)
	}
}

func TestLoginThenMe(t *testing.T) {
	s, base := start(t)
	login := func(contentType, body string) (int, string) {
		t.Helper()
		status, _, b := do(t, "POST", base+"/login", contentType, body)
		var rep struct{ Token string }
		if status == 200 {
			if err := json.Unmarshal(b, &rep); err != nil {
				t.Fatalf("%v: %s", err, b)
			}
		}
		return status, rep.Token
	}
	status, tokJSON := login("application/json", `{"user":"alice","password":"pw"}`)
	if status != 200 || tokJSON == "" {
		t.Fatalf("JSON login: %d %q", status, tokJSON)
	}
	status, tokForm := login("application/x-www-form-urlencoded", "user=alice&password=pw")
	if status != 200 || tokForm != tokJSON || tokJSON != s.Token("alice") {
		t.Fatalf("form login: %d %q; want the same token as JSON %q", status, tokForm, tokJSON)
	}
	if _, tokBob := login("application/json", `{"user":"bob"}`); tokBob == tokJSON {
		t.Fatal("two users got the same token")
	}
	for _, body := range []string{`{"password":"pw"}`, `{}`} {
		if status, _ := login("application/json", body); status != 401 {
			t.Errorf("login %s: status %d, want 401", body, status)
		}
	}
	if status, _ := login("application/x-www-form-urlencoded", "password=pw"); status != 401 {
		t.Errorf("form login without user: status %d, want 401", status)
	}
	if status, _ := login("application/json", `{"user":`); status != 400 {
		t.Errorf("broken JSON: status %d, want 400", status)
	}

	status, _, body := do(t, "GET", base+"/me", "", "", "Authorization", "Bearer "+tokJSON)
	if status != 200 || string(body) != "{\"user\":\"alice\"}\n" {
		t.Errorf("me: %d %s", status, body)
	}
	forged := tokJSON[:len(tokJSON)-1] + "0"
	if forged == tokJSON {
		forged = tokJSON[:len(tokJSON)-1] + "1"
	}
	for _, auth := range []string{"Bearer " + forged, "Basic " + tokJSON, "Bearer", "Bearer x.y"} {
		status, hdr, _ := do(t, "GET", base+"/me", "", "", "Authorization", auth)
		if status != 401 || hdr.Get("WWW-Authenticate") != "Bearer" {
			t.Errorf("me with %q: %d (WWW-Authenticate %q), want 401", auth, status, hdr.Get("WWW-Authenticate"))
		}
	}
	// Another server with the same secret accepts the token: tokens depend on
	// the user and the secret only.
	_, other := start(t)
	if status, _, _ := do(t, "GET", other+"/me", "", "", "Authorization", "bearer "+tokJSON); status != 200 {
		t.Errorf("token rejected by a second server: %d", status)
	}
}

func TestStatsCountEveryRequest(t *testing.T) {
	s, base := start(t)
	const n = 200
	var wg sync.WaitGroup
	for i := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := &http.Client{Transport: &http.Transport{MaxConnsPerHost: 1}}
			defer c.CloseIdleConnections()
			for j := range n / 4 {
				path := "/"
				if j%5 == 0 {
					path = []string{"/status/500", "/nope", "/echo", "/bytes/10"}[i]
				}
				resp, err := c.Get(base + path)
				if err != nil {
					t.Error(err)
					return
				}
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
			}
		}()
	}
	wg.Wait()
	st := s.Stats()
	want := map[string]uint64{"root": 160, "status": 10, "not_found": 10, "echo": 10, "bytes": 10,
		"delay": 0, "login": 0, "me": 0, "ws_echo": 0, "tinode": 0, "queue": 0}
	if st.Requests != n {
		t.Errorf("Requests = %d, want %d", st.Requests, n)
	}
	for k, v := range want {
		if st.Routes[k] != v {
			t.Errorf("Routes[%s] = %d, want %d", k, st.Routes[k], v)
		}
	}
	if st.ConnsAccepted != 4 || st.ConnsPeak > 4 || st.ConnsPeak < 1 {
		t.Errorf("connections: accepted %d, peak %d; want 4 accepted, peak <= 4", st.ConnsAccepted, st.ConnsPeak)
	}

	// /__stats reports the same figures and does not count itself.
	_, _, body := do(t, "GET", base+"/__stats", "", "")
	var got Stats
	if err := json.Unmarshal(body, &got); err != nil {
		t.Fatalf("%v: %s", err, body)
	}
	if got.Requests != n || got.Routes["root"] != 160 {
		t.Errorf("/__stats = %s", body)
	}
	if s.Stats().Requests != n {
		t.Errorf("reading /__stats was counted")
	}

	s.ResetStats()
	if st := s.Stats(); st.Requests != 0 || st.Routes["root"] != 0 || st.ConnsAccepted != 0 {
		t.Errorf("after ResetStats: %+v", st)
	}
}

func TestConnectionsOpenAndClosed(t *testing.T) {
	s, base := start(t)
	addr := strings.TrimPrefix(base, "http://")
	var conns []net.Conn
	for range 3 {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		conns = append(conns, c)
	}
	waitFor(t, func() bool { return s.Stats().ConnsOpen == 3 }, "3 open connections")
	for _, c := range conns {
		c.Close()
	}
	waitFor(t, func() bool { return s.Stats().ConnsOpen == 0 }, "connections to close")
	if st := s.Stats(); st.ConnsAccepted != 3 || st.ConnsPeak != 3 {
		t.Errorf("accepted %d, peak %d; want 3, 3", st.ConnsAccepted, st.ConnsPeak)
	}
}

func waitFor(t *testing.T, cond func() bool, what string) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// TestStall checks the coordinated-omission lever: requests arriving during
// the window are answered only after it, those after it at once.
func TestStall(t *testing.T) {
	s, base := start(t)
	const window = 300 * time.Millisecond
	t0 := time.Now()
	s.Stall(window)
	var wg sync.WaitGroup
	took := make([]time.Duration, 3)
	for i := range took {
		wg.Add(1)
		go func() {
			defer wg.Done()
			time.Sleep(time.Duration(i) * 50 * time.Millisecond)
			do(t, "GET", base+"/", "", "")
			took[i] = time.Since(t0)
		}()
	}
	wg.Wait()
	for i, d := range took {
		if d < window-10*time.Millisecond {
			t.Errorf("request %d answered after %v, inside the %v stall", i, d, window)
		}
	}
	t1 := time.Now()
	do(t, "GET", base+"/status/200", "", "")
	if d := time.Since(t1); d > window/2 {
		t.Errorf("request after the window took %v", d)
	}
	// /__stats is never stalled: a test must be able to watch a stall.
	s.Stall(time.Minute)
	t2 := time.Now()
	do(t, "GET", base+"/__stats", "", "")
	if d := time.Since(t2); d > time.Second {
		t.Errorf("/__stats stalled for %v", d)
	}
}

// TestCloseReleasesWaiters checks that Close does not wait out a long delay
// or stall, and that Serve then returns nil.
func TestCloseReleasesWaiters(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := New(Options{})
	served := make(chan error, 1)
	go func() { served <- s.Serve(ln) }()
	s.Stall(time.Hour)
	errs := make(chan error, 2)
	for _, path := range []string{"/delay/50000", "/"} {
		go func() {
			resp, err := http.Get("http://" + ln.Addr().String() + path)
			if err == nil {
				resp.Body.Close()
			}
			errs <- err
		}()
	}
	waitFor(t, func() bool { return s.Stats().Requests == 2 }, "both requests to arrive")
	t0 := time.Now()
	if err := s.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
	for range 2 {
		<-errs
	}
	if d := time.Since(t0); d > 3*time.Second {
		t.Errorf("Close took %v", d)
	}
	select {
	case err := <-served:
		if err != nil {
			t.Errorf("Serve returned %v after Close, want nil", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Serve did not return after Close")
	}
	if err := s.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
}

func TestCloseBeforeServe(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := New(Options{})
	s.Close()
	if err := s.Serve(ln); err != nil {
		t.Errorf("Serve after Close = %v, want nil", err)
	}
	if _, err := net.Dial("tcp", ln.Addr().String()); err == nil {
		t.Error("listener still accepts after Serve on a closed server")
	}
}

// TestRootDoesNotAllocate guards the benchmark route's cost: the target must
// not be what a generator benchmark measures.
func TestRootDoesNotAllocate(t *testing.T) {
	s := New(Options{})
	var ctx fasthttp.RequestCtx
	ctx.Request.SetRequestURI("/")
	allocs := testing.AllocsPerRun(1000, func() {
		ctx.Response.Reset()
		s.handle(&ctx)
	})
	if allocs != 0 {
		t.Errorf("GET / allocates %.1f times per request, want 0", allocs)
	}
	if string(ctx.Response.Body()) != "ok\n" {
		t.Errorf("body %q", ctx.Response.Body())
	}
}

func BenchmarkRoot(b *testing.B) {
	s := New(Options{})
	var ctx fasthttp.RequestCtx
	ctx.Request.SetRequestURI("/")
	b.ReportAllocs()
	for b.Loop() {
		ctx.Response.Reset()
		s.handle(&ctx)
	}
}
