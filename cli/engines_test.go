package cli

import (
	"bufio"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"io"
	"math/big"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tressi/tressi/exec"
)

// recordingServer answers every request 200 and keeps each one as the
// server read it (method, URI, host, headers, body), by X-Seq. got hands
// over what was recorded so far and starts afresh.
// With cert set it speaks HTTPS.
func recordingServer(t *testing.T, cert *tls.Certificate) (url string, got func() map[string]string) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	scheme := "http"
	if cert != nil {
		ln, scheme = tls.NewListener(ln, &tls.Config{Certificates: []tls.Certificate{*cert}}), "https"
	}
	t.Cleanup(func() { ln.Close() })
	var mu sync.Mutex
	reqs := map[string]string{}
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				br := bufio.NewReader(c)
				for {
					req, err := http.ReadRequest(br)
					if err != nil {
						return
					}
					body, _ := io.ReadAll(req.Body)
					var b strings.Builder
					fmt.Fprintf(&b, "%s %s %s\n", req.Method, req.RequestURI, req.Host)
					names := make([]string, 0, len(req.Header))
					for name := range req.Header {
						names = append(names, name)
					}
					sort.Strings(names)
					for _, name := range names {
						fmt.Fprintf(&b, "%s: %s\n", name, strings.Join(req.Header[name], ", "))
					}
					fmt.Fprintf(&b, "\n%s", body)
					mu.Lock()
					reqs[req.Header.Get("X-Seq")] = b.String()
					mu.Unlock()
					c.Write([]byte("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"))
				}
			}()
		}
	}()
	return scheme + "://" + ln.Addr().String(), func() map[string]string {
		mu.Lock()
		defer mu.Unlock()
		out := reqs
		reqs = map[string]string{}
		return out
	}
}

// The two engines send byte-for-byte the same requests for the same plan:
// the loop engine renders with fasthttp's request writer, so static and
// per-request values, target and endpoint headers, bodies and base paths
// reach the server alike, over plain HTTP and inside TLS.
func TestEnginesSendTheSameRequests(t *testing.T) {
	cert, caFile := selfSigned(t)
	for _, scheme := range []string{"http", "https"} {
		t.Run(scheme, func(t *testing.T) {
			var c *tls.Certificate
			tlsBlock := ""
			if scheme == "https" {
				c, tlsBlock = &cert, fmt.Sprintf("tls {\n    ca_file = %q\n  }", caFile)
			}
			enginesSendTheSame(t, c, tlsBlock)
		})
	}
}

func enginesSendTheSame(t *testing.T, cert *tls.Certificate, tlsBlock string) {
	plan := filepath.Join(t.TempDir(), "p.hcl")
	var seen []map[string]string
	url, got := recordingServer(t, cert)
	for _, engine := range []string{exec.EngineLoop, exec.EngineFasthttp} {
		src := fmt.Sprintf(`
target "api" {
  url         = "%s/base"
  connections = 4
  headers     = { "X-Team" = "perf", "Accept" = "application/json" }
  # A machine loaded far past its cores can take seconds for a TLS
  # handshake under -race: the defaults (2s, 5s) would record a few
  # connect errors, and this test compares requests, not speed.
  connect_timeout = "30s"
  timeout         = "30s"
  %s
}
endpoint "list" {
  path    = "/items?page=${seq}&q=a%%20b"
  headers = { "X-Seq" = "${seq}" }
}
endpoint "create" {
  method  = "POST"
  path    = "/items"
  headers = { "X-Seq" = "${seq}", "Content-Type" = "application/json", "Accept" = "text/plain" }
  body    = jsonencode({ id = uuid(), n = seq, pick = random_int(1, 9), name = "x\"y" })
}
endpoint "head" {
  method  = "HEAD"
  path    = "/"
  headers = { "X-Seq" = "${seq}" }
}
load {
  seed = 11
  stage {
    duration = "300ms"
    rate     = 200
  }
}
`, url, tlsBlock)
		if err := os.WriteFile(plan, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		code, out, errs := run(t, nil, "apply", plan, "--quiet", "--engine", engine, "--out", filepath.Join(t.TempDir(), engine))
		if code != ExitOK {
			t.Fatalf("%s: exit %d\n%s\n%s", engine, code, out, errs)
		}
		reqs := got()
		if len(reqs) != 60 {
			t.Fatalf("%s: the server recorded %d requests, want 60", engine, len(reqs))
		}
		seen = append(seen, reqs)
	}
	for seq, loop := range seen[0] {
		if fast := seen[1][seq]; loop != fast {
			t.Fatalf("seq %s differs:\n--- loop\n%s\n--- fasthttp\n%s", seq, loop, fast)
		}
	}
}

// selfSigned makes a certificate for 127.0.0.1 and writes it, as the CA a
// plan trusts, to a file.
func selfSigned(t *testing.T) (tls.Certificate, string) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "127.0.0.1"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)}, KeyUsage: x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}, IsCA: true, BasicConstraintsValid: true}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "ca.pem")
	if err := os.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o644); err != nil {
		t.Fatal(err)
	}
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}, path
}

// Scenario steps too: per-session data rows, captured values and the
// steps' own headers and bodies reach the server alike from both engines.
func TestEnginesSendTheSameScenarioRequests(t *testing.T) {
	dir := t.TempDir()
	plan := filepath.Join(dir, "p.hcl")
	if err := os.WriteFile(filepath.Join(dir, "users.csv"), []byte("username,password\nalice,a1\nbob,\"b\"\"2\"\ncarol,c 3\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var seen []map[string]string
	url, got := recordingServer(t, nil)
	for _, engine := range []string{exec.EngineLoop, exec.EngineFasthttp} {
		src := fmt.Sprintf(`
target "api" {
  url         = "%s/v1"
  connections = 4
  headers     = { "X-Team" = "perf" }
}
data "users" {
  csv = "users.csv"
}
scenario "journey" {
  step "login" {
    method  = "POST"
    path    = "/login"
    headers = { "X-Seq" = "${seq}-login", "Content-Type" = "application/json" }
    body    = jsonencode({ user = row.username, password = row.password, id = uuid() })
    capture = { word = regex("(o)k") }
  }
  step "me" {
    path    = "/me?u=${row.username}&n=${random_int(1, 99)}"
    headers = { "X-Seq" = "${seq}-me", Authorization = "Bearer ${captured.word}" }
  }
}
load {
  seed = 3
  stage {
    duration = "300ms"
    rate     = 100
  }
}
`, url)
		if err := os.WriteFile(plan, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		code, out, errs := run(t, nil, "apply", plan, "--quiet", "--engine", engine, "--out", filepath.Join(t.TempDir(), engine))
		if code != ExitOK {
			t.Fatalf("%s: exit %d\n%s\n%s", engine, code, out, errs)
		}
		reqs := got()
		if len(reqs) != 60 {
			t.Fatalf("%s: the server recorded %d requests, want 60", engine, len(reqs))
		}
		seen = append(seen, reqs)
	}
	for seq, loop := range seen[0] {
		if !strings.Contains(loop, "Bearer o") && strings.HasSuffix(seq, "-me") {
			t.Fatalf("seq %s went out without the captured value:\n%s", seq, loop)
		}
		if fast := seen[1][seq]; loop != fast {
			t.Fatalf("seq %s differs:\n--- loop\n%s\n--- fasthttp\n%s", seq, loop, fast)
		}
	}
}

// Run's errors map to exit codes: what the user gave was wrong (1), or the
// run itself failed, an engine that would not start included (3).
func TestRunErrorCodes(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want int
	}{
		{&exec.InputError{Err: fmt.Errorf("unknown engine %q", "turbo")}, ExitInvalid},
		{fmt.Errorf("wrapped: %w", &exec.InputError{Err: fmt.Errorf("bad")}), ExitInvalid},
		{fmt.Errorf("starting the loop engine: epoll_create1: too many open files"), ExitInternal},
	} {
		if got := runErrorCode(tc.err); got != tc.want {
			t.Errorf("%v: exit %d, want %d", tc.err, got, tc.want)
		}
	}
}
