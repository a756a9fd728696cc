package exec

import (
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"testing"
	"time"

	"github.com/tressi/tressi/results"
)

// serveH2TLS is Go's HTTP/2 server over TLS with a certificate of p's CA;
// h1only leaves HTTP/2 out of its ALPN offer.
func serveH2TLS(t *testing.T, p *pki, h1only bool) *h2cServer {
	t.Helper()
	cert, _, _ := p.issue(t, []string{"127.0.0.1"}, time.Now().Add(-time.Hour), time.Now().Add(time.Hour), false)
	s := &h2cServer{paths: map[string]int{}}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s.addr = ln.Addr().String()
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.ProtoMajor == 2 {
			s.h2.Add(1)
		}
		s.mu.Lock()
		s.paths[r.URL.Path]++
		s.mu.Unlock()
		io.WriteString(w, "ok")
	}), TLSConfig: &tls.Config{Certificates: []tls.Certificate{cert}},
		ErrorLog: log.New(io.Discard, "", 0)} // the refused ALPN offers are the point
	if h1only {
		srv.TLSNextProto = map[string]func(*http.Server, *tls.Conn, http.Handler){}
	}
	go srv.ServeTLS(ln, "", "")
	t.Cleanup(func() { srv.Close() })
	return s
}

// h2TLSPlan is n ms at 1,000 req/s on two connections. A refused h2
// request dials and handshakes again, so the refused half dials 20 times
// in quick succession: the run that showed a handshake's wake, taken
// during the connect, could leave a connection dialing until its timeout
// (TestWakeDuringConnectKeepsTheConnect, in the loop's package).
func h2TLSPlan(addr, protocol, caFile string, n int) string {
	return fmt.Sprintf(`
target "t" {
  url         = "https://%s"
  protocol    = %q
  connections = 2
  tls {
    ca_file = %q
  }
}
endpoint "item" {
  path = "/item/${seq}"
}
load {
  stage {
    duration = "%dms"
    rate     = 1000
  }
}
`, addr, protocol, caFile, n)
}

// protocol = "h2" over TLS: ALPN picks h2, and every request goes as a stream.
func TestH2OverTLSOnTheLoop(t *testing.T) {
	p := newPKI(t)
	srv := serveH2TLS(t, p, false)
	out, rows := runPlan(t, compilePlan(t, h2TLSPlan(srv.addr, "h2", p.caFile, 200), nil), Options{})
	if out.Engine != EngineLoop || out.Requests != 200 || out.OK != 200 || srv.h2.Load() != 200 {
		t.Fatalf("outcome %+v; server saw %d HTTP/2 requests", out, srv.h2.Load())
	}
	if m := readMeta(t, out.Dir); m.Protocols["t"]["h2"] < 1 || m.Protocols["t"]["http/1.1"] != 0 || m.TLS == nil || m.TLS.Handshakes < 1 {
		t.Fatalf("meta.json protocols %v, tls %+v", m.Protocols, m.TLS)
	}
	opened := 0
	for _, r := range rows {
		if r.Error != results.None || r.Status != 200 {
			t.Fatalf("row %+v", r)
		}
		if r.Connect > 0 {
			opened++
		}
	}
	// connect_ns is on the first stream of each connection opened in the
	// run, handshake included; the warm-up's are in meta.json.
	warmed := warmedConns(readMeta(t, out.Dir))
	if opened+warmed < 1 || opened+warmed > 2 {
		t.Fatalf("%d rows with connect_ns and %d connections warmed up, over 2 connections", opened, warmed)
	}
}

// protocol = "auto" takes what the server chooses: HTTP/1.1 from a server
// that offers no h2, and "h2" refuses such a server with a reason.
func TestH2AutoFallsBackAndH2Refuses(t *testing.T) {
	p := newPKI(t)
	srv := serveH2TLS(t, p, true)
	out, _ := runPlan(t, compilePlan(t, h2TLSPlan(srv.addr, "auto", p.caFile, 50), nil), Options{})
	if out.OK != 50 || srv.h2.Load() != 0 {
		t.Fatalf("auto: outcome %+v, %d HTTP/2 requests", out, srv.h2.Load())
	}
	if m := readMeta(t, out.Dir); m.Protocols["t"]["http/1.1"] < 1 || m.Protocols["t"]["h2"] != 0 {
		t.Fatalf("auto: meta.json protocols %v", m.Protocols)
	}
	out, rows := runPlan(t, compilePlan(t, h2TLSPlan(srv.addr, "h2", p.caFile, 20), nil), Options{})
	if out.OK != 0 || len(rows) != 20 {
		t.Fatalf("h2 against an HTTP/1.1 server: outcome %+v", out)
	}
	for _, r := range rows {
		if r.Error != results.Protocol && r.Error != results.TLS {
			t.Fatalf("slot %d: %v, want the refusal recorded", r.Slot, r.Error)
		}
	}
}

// An h2 run against nginx with http2 on TLS: every request tressi recorded
// is a line of nginx's access log, by path and status, over HTTP/2.
func TestH2RequestsMatchNginxAccessLog(t *testing.T) {
	p := newPKI(t)
	_, leaf, key := p.issue(t, []string{"127.0.0.1"}, time.Now().Add(-time.Hour), time.Now().Add(time.Hour), false)
	kder, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	certFile, keyFile := p.write(t, "server.pem", "CERTIFICATE", leaf.Raw), p.write(t, "server-key.pem", "EC PRIVATE KEY", kder)
	addr, accessLog := startNginxServer(t, "ssl http2", fmt.Sprintf("ssl_certificate %s; ssl_certificate_key %s;", certFile, keyFile), nginxStatuses)
	src := fmt.Sprintf(`
target "t" {
  url         = "https://%s"
  protocol    = "h2"
  connections = 2
  max_streams = 16
  tls {
    ca_file = %q
  }
}
endpoint "ok" {
  path   = "/"
  weight = 4
}
endpoint "missing" {
  path   = "/missing"
  weight = 2
  expect { status = [404] }
}
endpoint "teapot" {
  path   = "/teapot"
  weight = 1
}
load {
  stage {
    duration = "1s"
    rate     = 350
  }
}
`, addr, p.caFile)
	out, _ := runPlan(t, compilePlan(t, src, nil), Options{})
	bySlot, _ := sessionRows(t, out.Dir)
	if out.Engine != EngineLoop || len(bySlot) != 350 {
		t.Fatalf("outcome %+v, %d slots", out, len(bySlot))
	}
	ours := map[string]int{}
	paths := map[string]string{"ok": "/", "missing": "/missing", "teapot": "/teapot"}
	for k, rows := range bySlot {
		r := rows[0]
		if len(rows) != 1 || r.Error != results.None {
			t.Fatalf("slot %d: %+v", k, rows)
		}
		ours[fmt.Sprintf("%s %d", paths[r.Name], r.Status)]++
	}
	awaitLogLines(t, accessLog, 350)
	theirs, protos := accessCounts(t, accessLog)
	if fmt.Sprint(ours) != fmt.Sprint(theirs) || protos["HTTP/2.0"] != 350 {
		t.Fatalf("tressi recorded %v\nnginx logged   %v (protocols %v)", ours, theirs, protos)
	}
	t.Logf("tressi recorded %v\nnginx logged   %v (protocols %v)", ours, theirs, protos)
}
