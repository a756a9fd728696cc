package exec

import (
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tressi/tressi/compile"
	"github.com/tressi/tressi/results"
)

// tlsServer is a real HTTPS server on loopback; it counts the requests it
// answered and the connections it accepted.
type tlsServer struct {
	addr     string
	requests atomic.Int64
	conns    atomic.Int64
}

func serveTLS(t *testing.T, cfg *tls.Config, closeEach bool) *tlsServer {
	t.Helper()
	s := &tlsServer{}
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.requests.Add(1)
		if closeEach {
			w.Header().Set("Connection", "close")
		}
		w.Write([]byte("ok"))
	}))
	srv.TLS = cfg
	srv.Config.ErrorLog = log.New(io.Discard, "", 0) // the failures are the tests' point
	srv.Config.ConnState = func(_ net.Conn, st http.ConnState) {
		if st == http.StateNew {
			s.conns.Add(1)
		}
	}
	srv.StartTLS()
	t.Cleanup(srv.Close)
	s.addr = srv.Listener.Addr().String()
	return s
}

// httpsSchedule is schedule() against an https target.
func httpsSchedule(addr string, n int, interval time.Duration, tt compile.TargetTLS) *compile.Schedule {
	s := schedule(addr, n, interval)
	s.Targets[0].Scheme = "https"
	s.Targets[0].TLS = tt
	// Handshakes on a busy 2-core machine under -race take their time.
	s.Targets[0].ConnectTimeout, s.Targets[0].Timeout = 15*time.Second, 20*time.Second
	return s
}

// warmedConns is how many connections the run opened before instant zero.
func warmedConns(m Meta) int {
	if m.Warmup == nil {
		return 0
	}
	return int(m.Warmup.Connections)
}

// engines are the engines every HTTPS test runs on.
var engines = []string{EngineFasthttp, EngineLoop}

func TestHTTPSTrustsCAFileAndRecordsConnectTime(t *testing.T) {
	p := newPKI(t)
	cert, _, _ := p.issue(t, []string{"api.test", "127.0.0.1"}, time.Now().Add(-time.Hour), time.Now().Add(time.Hour), false)
	srv := serveTLS(t, &tls.Config{Certificates: []tls.Certificate{cert}}, false)
	for _, engine := range engines {
		t.Run(engine, func(t *testing.T) {
			s := httpsSchedule(srv.addr, 50, time.Millisecond, compile.TargetTLS{CAFile: p.caFile, ServerName: "api.test"})
			s.Targets[0].Connections = 2
			dir := filepath.Join(t.TempDir(), "run")
			out, rows := runPlan(t, s, Options{Engine: engine, OutDir: dir})
			checkOneRowPerSlot(t, rows, 50)
			opened := 0
			for _, r := range rows {
				if r.Error != results.None || r.Status != 200 {
					t.Fatalf("row %+v", r)
				}
				if r.Connect > 0 {
					opened++
					if r.Connect > r.Latency {
						t.Errorf("connect_ns %d exceeds the request's latency %d", r.Connect, r.Latency)
					}
				}
				if r.BytesIn == 0 || r.BytesOut == 0 {
					t.Errorf("row %+v counts no bytes", r)
				}
			}
			m := readMeta(t, dir)
			// The loop opens its connections before instant zero: their
			// handshakes are the warm-up's, in no row.
			warmed := warmedConns(m)
			if m.Engine != engine || m.TLS == nil || m.TLS.Handshakes < 1 || int(m.TLS.Handshakes) != opened+warmed {
				t.Errorf("engine %s, tls %+v; %d rows opened a connection, %d warmed up", m.Engine, m.TLS, opened, warmed)
			}
			if engine == EngineLoop && warmed != 2 {
				t.Errorf("meta.json warmup %+v, want the target's 2 connections", m.Warmup)
			}
			if out.TLSHandshakes != m.TLS.Handshakes {
				t.Errorf("outcome says %d handshakes, meta.json %d", out.TLSHandshakes, m.TLS.Handshakes)
			}
		})
	}
}

// Each failure is a tls error, and the sample says why in words.
func TestHTTPSFailuresSayWhy(t *testing.T) {
	p := newPKI(t)
	good, _, _ := p.issue(t, []string{"api.test"}, time.Now().Add(-time.Hour), time.Now().Add(time.Hour), false)
	expired, _, _ := p.issue(t, []string{"api.test"}, time.Now().Add(-48*time.Hour), time.Now().Add(-24*time.Hour), false)
	goodSrv := serveTLS(t, &tls.Config{Certificates: []tls.Certificate{good}}, false)
	expiredSrv := serveTLS(t, &tls.Config{Certificates: []tls.Certificate{expired}}, false)
	pool := x509.NewCertPool()
	pool.AddCert(p.ca)
	mtlsSrv := serveTLS(t, &tls.Config{Certificates: []tls.Certificate{good}, ClientAuth: tls.RequireAndVerifyClientCert, ClientCAs: pool}, false)
	old := serveTLS(t, &tls.Config{Certificates: []tls.Certificate{good}, MaxVersion: tls.VersionTLS12}, false)
	for _, tc := range []struct {
		name, addr string
		tt         compile.TargetTLS
		why        string
	}{
		{"unknown authority", goodSrv.addr, compile.TargetTLS{ServerName: "api.test"}, "unknown authority"},
		{"name mismatch", goodSrv.addr, compile.TargetTLS{CAFile: p.caFile, ServerName: "other.test"}, "name mismatch"},
		{"expired", expiredSrv.addr, compile.TargetTLS{CAFile: p.caFile, ServerName: "api.test"}, "expired"},
		{"client certificate required", mtlsSrv.addr, compile.TargetTLS{CAFile: p.caFile, ServerName: "api.test"}, "handshake failure"},
		{"no common version", old.addr, compile.TargetTLS{CAFile: p.caFile, ServerName: "api.test", MinVersion: "1.3"}, "handshake failure"},
	} {
		for _, engine := range engines {
			t.Run(tc.name+"/"+engine, func(t *testing.T) {
				s := httpsSchedule(tc.addr, 5, time.Millisecond, tc.tt)
				dir := filepath.Join(t.TempDir(), "run")
				_, rows := runPlan(t, s, Options{Engine: engine, OutDir: dir})
				checkOneRowPerSlot(t, rows, 5)
				for _, r := range rows {
					if r.Error != results.TLS {
						t.Fatalf("row %+v, want a tls error; samples %+v", r, readSampleFile(t, dir))
					}
				}
				ss := readSampleFile(t, dir)
				if len(ss) != 1 || ss[0].Error != "tls" || !strings.Contains(ss[0].Detail, tc.why) {
					t.Fatalf("samples %+v, want one tls sample saying %q", ss, tc.why)
				}
				if tc.name != "client certificate required" && rows[0].Sent != -1 {
					// In TLS 1.3 the server checks the client's certificate
					// after the client finished: the request went out.
					t.Fatalf("row %+v, want nothing sent", rows[0])
				}
			})
		}
	}
}

func TestHTTPSClientCertificate(t *testing.T) {
	p := newPKI(t)
	good, _, _ := p.issue(t, []string{"api.test"}, time.Now().Add(-time.Hour), time.Now().Add(time.Hour), false)
	pool := x509.NewCertPool()
	pool.AddCert(p.ca)
	srv := serveTLS(t, &tls.Config{Certificates: []tls.Certificate{good}, ClientAuth: tls.RequireAndVerifyClientCert, ClientCAs: pool}, false)
	certFile, keyFile := p.clientFiles(t)
	for _, engine := range engines {
		t.Run(engine, func(t *testing.T) {
			s := httpsSchedule(srv.addr, 10, time.Millisecond,
				compile.TargetTLS{CAFile: p.caFile, ServerName: "api.test", CertFile: certFile, KeyFile: keyFile})
			out, rows := runPlan(t, s, Options{Engine: engine})
			checkOneRowPerSlot(t, rows, 10)
			if out.OK != 10 {
				t.Fatalf("outcome %+v, first row %+v", out, rows[0])
			}
		})
	}
}

// TLS 1.2-only and 1.3-only servers both work, and a server that closes
// every connection makes each request pay a handshake, most of them
// resumed from the session the previous connection left.
func TestHTTPSVersionsAndResumption(t *testing.T) {
	p := newPKI(t)
	good, _, _ := p.issue(t, []string{"api.test"}, time.Now().Add(-time.Hour), time.Now().Add(time.Hour), false)
	for _, v := range []struct {
		name string
		ver  uint16
	}{{"1.2", tls.VersionTLS12}, {"1.3", tls.VersionTLS13}} {
		srv := serveTLS(t, &tls.Config{Certificates: []tls.Certificate{good}, MinVersion: v.ver, MaxVersion: v.ver}, true)
		for _, engine := range engines {
			t.Run(v.name+"/"+engine, func(t *testing.T) {
				before := srv.conns.Load()
				s := httpsSchedule(srv.addr, 20, 5*time.Millisecond, compile.TargetTLS{CAFile: p.caFile, ServerName: "api.test"})
				s.Targets[0].Connections = 1
				dir := filepath.Join(t.TempDir(), "run")
				out, rows := runPlan(t, s, Options{Engine: engine, OutDir: dir})
				checkOneRowPerSlot(t, rows, 20)
				if out.OK != 20 {
					t.Fatalf("outcome %+v", out)
				}
				m := readMeta(t, dir)
				conns := srv.conns.Load() - before
				if m.TLS == nil || m.TLS.Handshakes != conns || m.TLS.Resumed < conns/2 || m.TLS.Resumed >= m.TLS.Handshakes {
					t.Fatalf("meta tls %+v; the server accepted %d connections", m.TLS, conns)
				}
				// Each request opens its connection, but for the first over
				// a warm-up connection.
				cold := 0
				for _, r := range rows {
					if r.Connect <= 0 {
						cold++
					}
				}
				if cold != warmedConns(m) {
					t.Fatalf("%d rows have no connect_ns; %d connections warmed up", cold, warmedConns(m))
				}
			})
		}
	}
}

// insecure_skip_verify accepts any certificate, and meta.json says so.
func TestHTTPSInsecureSkipVerifyIsRecorded(t *testing.T) {
	p := newPKI(t)
	good, _, _ := p.issue(t, []string{"api.test"}, time.Now().Add(-time.Hour), time.Now().Add(time.Hour), false)
	srv := serveTLS(t, &tls.Config{Certificates: []tls.Certificate{good}}, false)
	for _, engine := range engines {
		t.Run(engine, func(t *testing.T) {
			s := httpsSchedule(srv.addr, 5, time.Millisecond, compile.TargetTLS{})
			s.Targets[0].InsecureSkipVerify = true
			dir := filepath.Join(t.TempDir(), "run")
			out, _ := runPlan(t, s, Options{Engine: engine, OutDir: dir})
			m := readMeta(t, dir)
			if out.OK != 5 || m.TLS == nil || len(m.TLS.InsecureSkipVerify) != 1 || m.TLS.InsecureSkipVerify[0] != "t" {
				t.Fatalf("outcome %+v, meta tls %+v", out, m.TLS)
			}
		})
	}
}

// session_resumption = false: every connection pays a full handshake.
func TestHTTPSResumptionOff(t *testing.T) {
	p := newPKI(t)
	good, _, _ := p.issue(t, []string{"api.test"}, time.Now().Add(-time.Hour), time.Now().Add(time.Hour), false)
	srv := serveTLS(t, &tls.Config{Certificates: []tls.Certificate{good}}, true)
	for _, engine := range engines {
		t.Run(engine, func(t *testing.T) {
			s := httpsSchedule(srv.addr, 10, 5*time.Millisecond, compile.TargetTLS{CAFile: p.caFile, ServerName: "api.test", NoResumption: true})
			s.Targets[0].Connections = 1
			dir := filepath.Join(t.TempDir(), "run")
			out, _ := runPlan(t, s, Options{Engine: engine, OutDir: dir})
			m := readMeta(t, dir)
			if out.OK != 10 || m.TLS == nil || m.TLS.Handshakes != 10 || m.TLS.Resumed != 0 {
				t.Fatalf("outcome %+v, meta tls %+v", out, m.TLS)
			}
		})
	}
}

// A body that runs to the connection's close ends, over TLS, with the
// server's close_notify: the response is complete, not a reset.
func TestHTTPSBodyUntilClose(t *testing.T) {
	p := newPKI(t)
	good, _, _ := p.issue(t, []string{"api.test"}, time.Now().Add(-time.Hour), time.Now().Add(time.Hour), false)
	ln, err := tls.Listen("tcp", "127.0.0.1:0", &tls.Config{Certificates: []tls.Certificate{good}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close() // sends close_notify
				buf := make([]byte, 4096)
				n := 0
				for !strings.Contains(string(buf[:n]), "\r\n\r\n") {
					m, err := c.Read(buf[n:])
					if err != nil {
						return
					}
					n += m
				}
				c.Write([]byte("HTTP/1.1 200 OK\r\nConnection: close\r\n\r\n" + strings.Repeat("z", 5000)))
			}()
		}
	}()
	for _, engine := range engines {
		t.Run(engine, func(t *testing.T) {
			s := httpsSchedule(ln.Addr().String(), 5, 2*time.Millisecond, compile.TargetTLS{CAFile: p.caFile, ServerName: "api.test"})
			out, rows := runPlan(t, s, Options{Engine: engine})
			if out.OK != 5 {
				t.Fatalf("outcome %+v, first row %+v", out, rows[0])
			}
			for _, r := range rows {
				if r.BytesIn < 5000 {
					t.Fatalf("row %+v read less than the body", r)
				}
			}
		})
	}
}

// Sessions with a connection each, over HTTPS: every session opens (and
// pays a handshake for) its own connection, all but the first few resume
// a session an earlier connection was given, and every request is a row.
func TestHTTPSSessionsResume(t *testing.T) {
	p := newPKI(t)
	good, _, _ := p.issue(t, []string{"127.0.0.1"}, time.Now().Add(-time.Hour), time.Now().Add(time.Hour), false)
	srv := serveTLS(t, &tls.Config{Certificates: []tls.Certificate{good}}, false)
	for _, engine := range engines {
		t.Run(engine, func(t *testing.T) {
			s := compilePlan(t, fmt.Sprintf(`
target "api" {
  url             = "https://%s"
  connection      = "session"
  connections     = 4
  connect_timeout = "15s"
  timeout         = "20s"
  tls {
    ca_file = %q
  }
}
scenario "visit" {
  step "home" {
    path   = "/"
    repeat = 3
  }
}
load {
  stage {
    duration = "1s"
    rate     = 40
  }
}
`, srv.addr, p.caFile), nil)
			before := srv.conns.Load()
			dir := filepath.Join(t.TempDir(), "run")
			out, rows := runPlan(t, s, Options{Engine: engine, OutDir: dir})
			m := readMeta(t, dir)
			conns := srv.conns.Load() - before
			if out.Engine != engine || len(rows) != 120 || out.OK != 120 {
				t.Fatalf("engine %s, %d rows, outcome %+v", out.Engine, len(rows), out)
			}
			if conns != 40 || m.TLS == nil || m.TLS.Handshakes != 40 || m.TLS.Resumed < 30 {
				t.Fatalf("server accepted %d connections; meta tls %+v", conns, m.TLS)
			}
			opened := 0
			for _, r := range rows {
				if r.Connect > 0 {
					opened++
				}
			}
			if opened != 40 {
				t.Fatalf("%d rows carry connect_ns, want one per session (40)", opened)
			}
		})
	}
}

// A job that waited in the queue for a connection longer than the connect
// timeout still gets the whole connect timeout for the connection (and
// handshake) it then opens: the timeout counts from the dial, not from
// when the job began waiting (which only its request timeout counts).
func TestQueuedJobsGetTheWholeConnectTimeout(t *testing.T) {
	p := newPKI(t)
	good, _, _ := p.issue(t, []string{"api.test"}, time.Now().Add(-time.Hour), time.Now().Add(time.Hour), false)
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(1500 * time.Millisecond)   // longer than the connect timeout: the queued job waits that long
		w.Header().Set("Connection", "close") // the job after the first dials anew
		w.Write([]byte("ok"))
	}))
	srv.TLS = &tls.Config{Certificates: []tls.Certificate{good}}
	srv.Config.ErrorLog = log.New(io.Discard, "", 0)
	srv.StartTLS()
	t.Cleanup(srv.Close)
	for _, engine := range engines {
		t.Run(engine, func(t *testing.T) {
			s := httpsSchedule(srv.Listener.Addr().String(), 2, time.Microsecond, compile.TargetTLS{CAFile: p.caFile, ServerName: "api.test"})
			s.Targets[0].Connections = 1
			s.Targets[0].ConnectTimeout = 1200 * time.Millisecond
			out, rows := runPlan(t, s, Options{Engine: engine})
			if out.OK != 2 {
				t.Fatalf("outcome %+v; rows %+v", out, rows)
			}
			// The second job waited for the first's connection, then
			// opened its own (the first may have had a warm-up one).
			for _, r := range rows {
				if r.Connect > int64(1200*time.Millisecond) || r.Connect <= 0 && (r.Slot != 0 || engine != EngineLoop) {
					t.Fatalf("row %+v: connect_ns should be the dial's own time", r)
				}
			}
		})
	}
}

// A server that closes each connection as its handshake ends (TLS 1.2,
// closing right after its Finished) fails every request at once. The loop
// may read the close before the handshake's goroutine saw its Finished:
// the connection it opened must not then carry a request nobody hears,
// and wait out the timeout.
func TestHTTPSServerClosingAsTheHandshakeEnds(t *testing.T) {
	p := newPKI(t)
	good, _, _ := p.issue(t, []string{"api.test"}, time.Now().Add(-time.Hour), time.Now().Add(time.Hour), false)
	ln, err := tls.Listen("tcp", "127.0.0.1:0", &tls.Config{Certificates: []tls.Certificate{good}, MaxVersion: tls.VersionTLS12})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				c.(*tls.Conn).Handshake()
				c.Close()
			}()
		}
	}()
	for _, engine := range engines {
		t.Run(engine, func(t *testing.T) {
			s := httpsSchedule(ln.Addr().String(), 20, time.Millisecond, compile.TargetTLS{CAFile: p.caFile, ServerName: "api.test"})
			s.Targets[0].Connections = 4
			_, rows := runPlan(t, s, Options{Engine: engine})
			checkOneRowPerSlot(t, rows, 20)
			for _, r := range rows {
				if r.Error == results.None || r.Error == results.Timeout {
					t.Fatalf("row %+v, want the server's close", r)
				}
			}
		})
	}
}
