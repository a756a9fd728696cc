package exec

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tressi/tressi/h2"
	"github.com/tressi/tressi/results"
	"golang.org/x/net/http2"
	"golang.org/x/net/http2/hpack"
)

// h2cServer is Go's own HTTP/2 server in cleartext with prior knowledge,
// counting requests by path and the streams it served at once.
type h2cServer struct {
	addr           string
	mu             sync.Mutex
	paths          map[string]int
	h2             atomic.Int64 // requests that came over HTTP/2
	inFlight, peak atomic.Int64
}

func serveH2C(t *testing.T, h http.HandlerFunc) *h2cServer {
	t.Helper()
	s := &h2cServer{paths: map[string]int{}}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s.addr = ln.Addr().String()
	srv := &http.Server{Protocols: new(http.Protocols), Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := s.inFlight.Add(1)
		defer s.inFlight.Add(-1)
		for p := s.peak.Load(); n > p && !s.peak.CompareAndSwap(p, n); p = s.peak.Load() {
		}
		if r.ProtoMajor == 2 {
			s.h2.Add(1)
		}
		s.mu.Lock()
		s.paths[r.URL.Path]++
		s.mu.Unlock()
		h(w, r)
	})}
	srv.Protocols.SetUnencryptedHTTP2(true)
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return s
}

// h2Schedule is n GET /k (k the slot) to addr over h2c, one every interval.
func h2Schedule(addr string, n int, interval time.Duration, conns, streams int) string {
	return fmt.Sprintf(`
target "t" {
  url         = "http://%s"
  protocol    = "h2c"
  connections = %d
  max_streams = %d
  timeout     = "2s"
}
endpoint "item" {
  path = "/item/${seq}"
}
load {
  stage {
    duration = "%s"
    rate     = %g
  }
}
`, addr, conns, streams, time.Duration(n)*interval, float64(time.Second)/float64(interval))
}

func TestH2COpenModelOnTheLoop(t *testing.T) {
	srv := serveH2C(t, func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(20 * time.Millisecond) // so streams overlap on each connection
		io.WriteString(w, "ok:"+r.URL.Path)
	})
	const n = 400
	s := compilePlan(t, h2Schedule(srv.addr, n, time.Millisecond, 2, 50), nil)
	out, rows := runPlan(t, s, Options{})
	if out.Engine != EngineLoop || out.Requests != n || out.OK != n {
		t.Fatalf("outcome %+v, want %d ok on the loop", out, n)
	}
	for _, r := range rows {
		if r.Status != 200 || r.Error != results.None || r.BytesIn == 0 || r.BytesOut == 0 || r.Latency < int64(20*time.Millisecond) {
			t.Fatalf("row %+v", r)
		}
	}
	srv.mu.Lock()
	paths := len(srv.paths)
	srv.mu.Unlock()
	if got := srv.h2.Load(); got != n || paths != n {
		t.Fatalf("server saw %d HTTP/2 requests on %d paths, want %d each", got, paths, n)
	}
	var meta Meta
	if b, err := os.ReadFile(filepath.Join(out.Dir, MetaFile)); err != nil || json.Unmarshal(b, &meta) != nil {
		t.Fatalf("meta.json: %v", err)
	}
	if p := meta.Protocols["t"]; len(p) != 1 || p["h2c"] < 1 || p["h2c"] > 2 {
		t.Fatalf("meta.json protocols %v, want 1 or 2 h2c connections", meta.Protocols)
	}
	// 2 connections, yet many requests at once: they shared connections as streams.
	if p := srv.peak.Load(); p <= 2 {
		t.Fatalf("at most %d requests in flight over 2 connections: no multiplexing", p)
	}
}

// h2cClosedPlan is a closed plan of users sending GET / to addr over h2c
// for 500 ms, on conns connections of streams streams each, with a timeout
// that a machine loaded far past its cores does not reach.
func h2cClosedPlan(addr string, conns, streams, users int) string {
	return fmt.Sprintf(`
target "t" {
  url         = "http://%s"
  protocol    = "h2c"
  connections = %d
  max_streams = %d
  timeout     = "30s"
}
endpoint "root" {
  path = "/"
}
load {
  model = "closed"
  stage {
    duration = "500ms"
    users    = %d
  }
}
`, addr, conns, streams, users)
}

func TestH2CClosedModelHonoursMaxStreams(t *testing.T) {
	srv := serveH2C(t, func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(5 * time.Millisecond)
		io.WriteString(w, "ok")
	})
	src := h2cClosedPlan(srv.addr, 2, 3, 20)
	out, rows := runPlan(t, compilePlan(t, src, nil), Options{})
	if out.Requests == 0 || out.OK != out.Requests || int64(len(rows)) != out.Requests {
		t.Fatalf("outcome %+v with %d rows", out, len(rows))
	}
	if p := srv.peak.Load(); p > 6 {
		t.Fatalf("%d requests in flight; 2 connections × max_streams 3 allow 6", p)
	}
}

// A stream that outlives its timeout is reset and recorded as a timeout;
// the streams beside it on the same connection are not disturbed.
func TestH2StreamTimeoutLeavesTheConnection(t *testing.T) {
	srv := serveH2C(t, func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, "/3") {
			select {
			case <-r.Context().Done(): // the client's RST_STREAM
			case <-time.After(10 * time.Second):
			}
			return
		}
		io.WriteString(w, "ok")
	})
	src := strings.Replace(h2Schedule(srv.addr, 10, 10*time.Millisecond, 1, 10), `timeout     = "2s"`, `timeout     = "300ms"`, 1)
	out, rows := runPlan(t, compilePlan(t, src, nil), Options{})
	if out.Requests != 10 || out.OK != 9 {
		t.Fatalf("outcome %+v, want 9 of 10 ok", out)
	}
	for _, r := range rows {
		want := results.None
		if r.Slot == 3 {
			want = results.Timeout
		}
		if r.Error != want {
			t.Fatalf("slot %d: error %v, want %v", r.Slot, r.Error, want)
		}
	}
}

// goAwayServer answers the first stream of each connection, then sends
// GOAWAY naming it the last it processed and closes: the other streams
// of that connection were never processed.
func goAwayServer(t *testing.T) (string, *atomic.Int64) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	var answered atomic.Int64
	go func() {
		for {
			nc, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer nc.Close()
				preface := make([]byte, len(h2.Preface))
				if _, err := io.ReadFull(nc, preface); err != nil {
					return
				}
				fr := http2.NewFramer(nc, nc)
				fr.WriteSettings()
				first := uint32(0)
				deadline := time.Now().Add(200 * time.Millisecond)
				nc.SetReadDeadline(deadline)
				for {
					f, err := fr.ReadFrame()
					if err != nil {
						break
					}
					if h, ok := f.(*http2.HeadersFrame); ok && first == 0 {
						first = h.StreamID
					}
					if _, ok := f.(*http2.SettingsFrame); ok && !f.(*http2.SettingsFrame).IsAck() {
						fr.WriteSettingsAck()
					}
				}
				if first == 0 {
					return
				}
				var b strings.Builder
				enc := hpack.NewEncoder(&b)
				enc.WriteField(hpack.HeaderField{Name: ":status", Value: "200"})
				fr.WriteHeaders(http2.HeadersFrameParam{StreamID: first, BlockFragment: []byte(b.String()), EndHeaders: true, EndStream: true})
				answered.Add(1)
				fr.WriteGoAway(first, http2.ErrCodeNo, nil)
				// Close only once the client has (or after 5 s): closing
				// with its frames unread would reset the connection, and a
				// client slow to read (a busy machine) would lose the
				// GOAWAY to the reset.
				nc.SetReadDeadline(time.Now().Add(5 * time.Second))
				io.Copy(io.Discard, nc)
			}()
		}
	}()
	return ln.Addr().String(), &answered
}

// Every slot is accounted under GOAWAY: the processed stream is ok, the
// others are unprocessed, each recorded once and never sent again.
func TestH2GoAwayRecordsUnprocessedStreams(t *testing.T) {
	addr, answered := goAwayServer(t)
	src := strings.Replace(h2Schedule(addr, 8, time.Millisecond, 1, 10), `rate `, `rate `, 1)
	out, rows := runPlan(t, compilePlan(t, src, nil), Options{})
	if out.Requests != 8 || len(rows) != 8 {
		t.Fatalf("outcome %+v, %d rows, want 8", out, len(rows))
	}
	var okRows, unprocessed int
	for _, r := range rows {
		switch r.Error {
		case results.None:
			okRows++
		case results.Unprocessed:
			unprocessed++
		default:
			t.Fatalf("slot %d: %v", r.Slot, r.Error)
		}
	}
	if int64(okRows) != answered.Load() || okRows+unprocessed != 8 || unprocessed == 0 {
		t.Fatalf("%d ok (server answered %d), %d unprocessed", okRows, answered.Load(), unprocessed)
	}
}

// A scenario over h2c: the token captured from the login's JSON answer is
// sent back by every later step, and a header capture works too.
func TestH2ScenarioCaptures(t *testing.T) {
	var bad atomic.Int64
	srv := serveH2C(t, func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/login":
			w.Header().Set("X-Session", "s-"+r.Header.Get("X-User"))
			io.WriteString(w, `{"token":"tok-`+r.Header.Get("X-User")+`"}`)
		case "/me":
			if r.Header.Get("Authorization") != "Bearer tok-"+r.Header.Get("X-User") || r.Header.Get("X-Session") != "s-"+r.Header.Get("X-User") {
				bad.Add(1)
				w.WriteHeader(401)
			}
		}
	})
	src := fmt.Sprintf(`
target "t" {
  url         = "http://%s"
  protocol    = "h2c"
  connections = 2
}
scenario "journey" {
  step "login" {
    method  = "POST"
    path    = "/login"
    headers = { "X-User" = "u${seq}" }
    capture = {
      token   = json("token")
      session = header("X-Session")
    }
  }
  step "me" {
    path    = "/me"
    repeat  = 3
    headers = {
      "X-User"        = "u${seq}"
      "Authorization" = "Bearer ${captured.token}"
      "X-Session"     = "${captured.session}"
    }
  }
}
load {
  stage {
    duration = "200ms"
    rate     = 50
  }
}
`, srv.addr)
	dir := filepath.Join(t.TempDir(), "run")
	out, err := Run(t.Context(), compilePlan(t, src, nil), Options{OutDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if out.Requests != 40 || out.OK != 40 || bad.Load() != 0 {
		t.Fatalf("outcome %+v, %d requests without the captured values", out, bad.Load())
	}
	srv.mu.Lock()
	me := srv.paths["/me"]
	srv.mu.Unlock()
	if me != 30 || srv.h2.Load() != 40 {
		t.Fatalf("server saw %v, %d over HTTP/2", srv.paths, srv.h2.Load())
	}
}

func TestH2NeedsTheLoop(t *testing.T) {
	s := compilePlan(t, h2Schedule("127.0.0.1:1", 1, time.Millisecond, 1, 1), nil)
	_, err := Run(t.Context(), s, Options{OutDir: filepath.Join(t.TempDir(), "run"), Engine: EngineFasthttp})
	if err == nil || !strings.Contains(err.Error(), "HTTP/1.1 only") {
		t.Fatalf("got %v, want the fasthttp engine to refuse an h2c target", err)
	}
}
