package cli

import (
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/tressi/tressi/exec"
	"github.com/tressi/tressi/testserver"
)

// nameServer is Go's HTTPS server (HTTP/1.1 and h2) holding a certificate
// for one DNS name only, that counts every request by protocol, Host and
// TLS server name: what a plan's resolve must keep the real name in.
type nameServer struct {
	port   int
	caFile string
	mu     sync.Mutex
	seen   map[string]int // "HTTP/2.0 api.test:PORT sni=api.test" → requests
}

func serveName(t *testing.T, name string) *nameServer {
	t.Helper()
	cfg, caPEM, err := testserver.SelfSignedFor([]string{name}, nil)
	if err != nil {
		t.Fatal(err)
	}
	s := &nameServer{caFile: filepath.Join(t.TempDir(), "ca.pem"), seen: map[string]int{}}
	if err := os.WriteFile(s.caFile, caPEM, 0o644); err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s.port = ln.Addr().(*net.TCPAddr).Port
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.seen[fmt.Sprintf("%s %s sni=%s", r.Proto, r.Host, r.TLS.ServerName)]++
		s.mu.Unlock()
		w.Write([]byte("ok"))
	}), TLSConfig: cfg}
	go srv.ServeTLS(ln, "", "")
	t.Cleanup(func() { srv.Close() })
	return s
}

func (s *nameServer) take() map[string]int {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := s.seen
	s.seen = map[string]int{}
	return out
}

// A target's resolve connects to the address given while the server sees
// the real name as Host (HTTP/2: :authority) and as TLS's server name, and
// the certificate is checked against it: on both engines, over HTTP/1.1 and
// HTTP/2. api.test resolves nowhere (RFC 6761), so a request that reached
// the server went through resolve.
func TestResolveKeepsHostAndSNI(t *testing.T) {
	srv := serveName(t, "api.test")
	for _, c := range []struct{ engine, protocol, proto string }{
		{exec.EngineLoop, "http1", "HTTP/1.1"},
		{exec.EngineFasthttp, "http1", "HTTP/1.1"},
		{exec.EngineLoop, "h2", "HTTP/2.0"},
	} {
		t.Run(c.engine+"/"+c.protocol, func(t *testing.T) {
			path := writePlan(t, fmt.Sprintf(`
target "api" {
  url             = "https://api.test:%d"
  resolve         = { "api.test" = "127.0.0.1" }
  protocol        = %q
  connections     = 2
  connect_timeout = "30s"
  timeout         = "30s"
  tls {
    ca_file = %q
  }
}
endpoint "home" {}
load {
  stage {
    duration = "500ms"
    rate     = 20
  }
}
`, srv.port, c.protocol, srv.caFile))
			code, out, errs := run(t, nil, "apply", path, "--quiet", "--engine", c.engine, "--out", filepath.Join(t.TempDir(), "run"))
			if code != ExitOK {
				t.Fatalf("exit %d\n%s\n%s", code, out, errs)
			}
			want := map[string]int{fmt.Sprintf("%s api.test:%d sni=api.test", c.proto, srv.port): 10}
			if got := srv.take(); fmt.Sprint(got) != fmt.Sprint(want) {
				t.Fatalf("the server saw %v, want %v", got, want)
			}
		})
	}
}
