package exec

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"net"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tressi/tressi/compile"
	"github.com/tressi/tressi/results"
	"github.com/tressi/tressi/testserver"
)

// startTLSTarget runs the built-in target over TLS on loopback: its
// WebSocket routes answer wss:// upgrades.
func startTLSTarget(t *testing.T, cfg *tls.Config) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := testserver.New(testserver.Options{})
	go srv.Serve(tls.NewListener(ln, cfg))
	t.Cleanup(func() { srv.Close() })
	return ln.Addr().String()
}

// startCoderEcho runs coder/websocket, an independent implementation, as
// a wss:// echo server (ws:// when cfg is nil); conns counts the
// connections it upgraded.
func startCoderEcho(t *testing.T, cfg *tls.Config, conns *atomic.Int64) string {
	return startCoderEchoLive(t, cfg, conns, nil)
}

// wssPlan: sessions that connect over wss://, send three echoed messages
// and close; %s are the address, the connect path and the tls block's
// attributes.
const wssPlan = `
target "t" {
  url             = "wss://%s"
  connect_timeout = "15s"
  timeout         = "20s"
  tls {
%s
  }
}
scenario "s" {
  step "connect" {
    connect = "%s"
  }
  step "msg" {
    send   = "m-${seq}"
    repeat = 3
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

func tlsAttrs(kv ...string) string {
	var b strings.Builder
	for i := 0; i+1 < len(kv); i += 2 {
		fmt.Fprintf(&b, "    %s = %s\n", kv[i], kv[i+1])
	}
	return b.String()
}

func quoted(s string) string { return fmt.Sprintf("%q", s) }

// wss:// against the built-in target and against coder/websocket: every
// row ok, the connect rows' connect_ns covers connect + handshake, and
// meta.json counts a handshake per session.
func TestWSSAgainstTwoServers(t *testing.T) {
	p := newPKI(t)
	cert, _, _ := p.issue(t, []string{"ws.test"}, time.Now().Add(-time.Hour), time.Now().Add(time.Hour), false)
	cfg := &tls.Config{Certificates: []tls.Certificate{cert}}
	var coderConns atomic.Int64
	for _, tc := range []struct{ name, addr, path string }{
		{"built-in target", startTLSTarget(t, cfg), "/ws/echo"},
		{"coder/websocket", startCoderEcho(t, cfg, &coderConns), "/echo"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := compilePlan(t, fmt.Sprintf(wssPlan, tc.addr, tlsAttrs("ca_file", quoted(p.caFile), "server_name", quoted("ws.test")), tc.path), nil)
			rows, sum, dir := runWS(t, s)
			checkSessionRows(t, s, rows)
			for k, rs := range rows {
				for _, r := range rs {
					if r.Error != results.None {
						t.Fatalf("slot %d: %s: %s", k, r.Name, r.Error)
					}
					if r.Name == "s.connect" && (r.Status != 101 || r.Connect <= 0 || r.Connect > r.Latency) {
						t.Fatalf("slot %d connect row %+v: want 101 and 0 < connect_ns <= latency", k, r.Row)
					}
				}
			}
			if sum.Sessions.Completed != s.Count || sum.Messages.Unmatched != 0 {
				t.Fatalf("summary %+v", sum)
			}
			m := readMeta(t, dir)
			if m.TLS == nil || m.TLS.Handshakes != s.Count || len(m.TLS.InsecureSkipVerify) != 0 {
				t.Fatalf("meta.json tls %+v, want %d handshakes", m.TLS, s.Count)
			}
		})
	}
	if coderConns.Load() == 0 {
		t.Fatal("coder/websocket upgraded no connection")
	}
}

// Mutual TLS: the server requires a client certificate; with cert_file and
// key_file the sessions run, without them every connect row is a tls
// error whose sample says so, and the rest of each session ws_closed.
func TestWSSClientCertificate(t *testing.T) {
	p := newPKI(t)
	cert, _, _ := p.issue(t, []string{"ws.test"}, time.Now().Add(-time.Hour), time.Now().Add(time.Hour), false)
	pool := x509.NewCertPool()
	pool.AddCert(p.ca)
	var conns atomic.Int64
	addr := startCoderEcho(t, &tls.Config{Certificates: []tls.Certificate{cert}, ClientAuth: tls.RequireAndVerifyClientCert, ClientCAs: pool}, &conns)
	certFile, keyFile := p.clientFiles(t)
	s := compilePlan(t, fmt.Sprintf(wssPlan, addr, tlsAttrs("ca_file", quoted(p.caFile), "server_name", quoted("ws.test"),
		"cert_file", quoted(certFile), "key_file", quoted(keyFile)), "/echo"), nil)
	rows, _, _ := runWS(t, s)
	checkSessionRows(t, s, rows)
	for k, rs := range rows {
		for _, r := range rs {
			if r.Error != results.None {
				t.Fatalf("slot %d: %s: %s", k, r.Name, r.Error)
			}
		}
	}
	s = compilePlan(t, fmt.Sprintf(wssPlan, addr, tlsAttrs("ca_file", quoted(p.caFile), "server_name", quoted("ws.test")), "/echo"), nil)
	checkTLSFailure(t, s, "handshake failure")
}

// checkTLSFailure runs s, whose every connect must fail with a tls error,
// and checks the rows and the sample that says why.
func checkTLSFailure(t *testing.T, sched *compile.Schedule, why string) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "run")
	if _, err := Run(context.Background(), sched, Options{OutDir: dir}); err != nil {
		t.Fatal(err)
	}
	rows, _ := sessionRows(t, dir)
	checkSessionRows(t, sched, rows)
	for k, rs := range rows {
		for _, r := range rs {
			want := results.WSClosed
			if r.Name == "s.connect" {
				want = results.TLS
			}
			if r.Error != want {
				t.Fatalf("slot %d: %s: %s, want %s; samples %+v", k, r.Name, r.Error, want, readSampleFile(t, dir))
			}
		}
	}
	ss := readSampleFile(t, dir)
	i := slices.IndexFunc(ss, func(x results.Sample) bool { return x.Error == "tls" })
	if i < 0 || !strings.Contains(ss[i].Detail, why) || ss[i].Endpoint != "s.connect" {
		t.Fatalf("samples %+v, want a tls sample of s.connect saying %q", ss, why)
	}
}

// Verification is on by default: an untrusted CA, a name the certificate
// does not carry and an expired certificate each fail every session's
// connect with a tls row, and the sample says which it was.
// insecure_skip_verify accepts them all, and meta.json says so.
func TestWSSFailuresSayWhy(t *testing.T) {
	p := newPKI(t)
	good, _, _ := p.issue(t, []string{"ws.test"}, time.Now().Add(-time.Hour), time.Now().Add(time.Hour), false)
	expired, _, _ := p.issue(t, []string{"ws.test"}, time.Now().Add(-48*time.Hour), time.Now().Add(-24*time.Hour), false)
	goodAddr := startTLSTarget(t, &tls.Config{Certificates: []tls.Certificate{good}})
	expiredAddr := startTLSTarget(t, &tls.Config{Certificates: []tls.Certificate{expired}})
	for _, tc := range []struct {
		name, addr, attrs, why string
	}{
		{"unknown authority", goodAddr, tlsAttrs("server_name", quoted("ws.test")), "unknown authority"},
		{"name mismatch", goodAddr, tlsAttrs("ca_file", quoted(p.caFile), "server_name", quoted("other.test")), "name mismatch"},
		{"expired", expiredAddr, tlsAttrs("ca_file", quoted(p.caFile), "server_name", quoted("ws.test")), "expired"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			checkTLSFailure(t, compilePlan(t, fmt.Sprintf(wssPlan, tc.addr, tc.attrs, "/ws/echo"), nil), tc.why)
		})
	}
	t.Run("insecure_skip_verify", func(t *testing.T) {
		s := compilePlan(t, fmt.Sprintf(wssPlan, expiredAddr, tlsAttrs("insecure_skip_verify", "true"), "/ws/echo"), nil)
		rows, _, dir := runWS(t, s)
		for k, rs := range rows {
			for _, r := range rs {
				if r.Error != results.None {
					t.Fatalf("slot %d: %s: %s", k, r.Name, r.Error)
				}
			}
		}
		if m := readMeta(t, dir); m.TLS == nil || !slices.Equal(m.TLS.InsecureSkipVerify, []string{"t"}) {
			t.Fatalf("meta.json tls %+v, want insecure_skip_verify [t]", m.TLS)
		}
	})
}

// A server that closes each connection as its TLS handshake ends ends
// every session at its connect, at once: the loop may read the close
// before the handshake's goroutine saw the handshake through, and the
// upgrade must not then go out on a socket nobody watches, to wait out
// the timeout.
func TestWSSServerClosingAsTheHandshakeEnds(t *testing.T) {
	p := newPKI(t)
	good, _, _ := p.issue(t, []string{"ws.test"}, time.Now().Add(-time.Hour), time.Now().Add(time.Hour), false)
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
	s := compilePlan(t, fmt.Sprintf(wssPlan, ln.Addr(), tlsAttrs("ca_file", quoted(p.caFile), "server_name", quoted("ws.test")), "/echo"), nil)
	rows, _, _ := runWS(t, s)
	checkSessionRows(t, s, rows)
	for k, rs := range rows {
		for _, r := range rs {
			if r.Name == "s.connect" && (r.Error == results.None || r.Error == results.Timeout || r.Error == results.ConnectTimeout) {
				t.Fatalf("slot %d connect row %+v, want the server's close", k, r.Row)
			}
		}
	}
}
