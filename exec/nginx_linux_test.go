package exec

import (
	"bytes"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/tressi/tressi/results"
)

// startNginx runs Debian's nginx on a loopback port with the given http
// block directives and returns its address and access log; the test skips
// with the reason when nginx is not there (.ci/run installs it).
func startNginx(t *testing.T, directives string) (addr, accessLog string) {
	t.Helper()
	return startNginxServer(t, "", directives, "")
}

// startNginxServer is startNginx with parameters for its listen line
// ("http2", "ssl http2") and more directives for its server block.
func startNginxServer(t *testing.T, listen, directives, server string) (addr, accessLog string) {
	t.Helper()
	bin, err := exec.LookPath("nginx")
	if err != nil {
		if _, serr := os.Stat("/usr/sbin/nginx"); serr != nil {
			t.Skipf("nginx is not installed (apt-get install nginx): %v", err)
		}
		bin = "/usr/sbin/nginx"
	}
	dir := t.TempDir()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr = ln.Addr().String()
	ln.Close() // nginx takes the port; a race with another test is possible, and then nginx says so
	accessLog = filepath.Join(dir, "access.log")
	conf := fmt.Sprintf(`daemon off;
master_process off;
pid %[1]s/nginx.pid;
error_log %[1]s/error.log;
events { worker_connections 64; }
http {
  access_log %[2]s;
  client_body_temp_path %[1]s/body;
  proxy_temp_path %[1]s/proxy;
  fastcgi_temp_path %[1]s/fastcgi;
  uwsgi_temp_path %[1]s/uwsgi;
  scgi_temp_path %[1]s/scgi;
  %[3]s
  server {
    listen %[4]s %[5]s;
    location / { return 200 "ok\n"; }
    %[6]s
  }
}
`, dir, accessLog, directives, addr, listen, server)
	path := filepath.Join(dir, "nginx.conf")
	if err := os.WriteFile(path, []byte(conf), 0o644); err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd := exec.Command(bin, "-p", dir, "-c", path, "-e", filepath.Join(dir, "error.log"))
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Skipf("nginx would not start: %v", err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	for deadline := time.Now().Add(5 * time.Second); ; {
		if c, err := net.Dial("tcp", addr); err == nil {
			c.Close()
			break
		}
		if time.Now().After(deadline) {
			t.Skipf("nginx did not listen on %s: %s", addr, stderr.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	return addr, accessLog
}

// nginx closes keep-alive connections idle for 2 s; one request every 2.5 s
// on one connection always finds its connection closed. Each request must
// still succeed and reach nginx exactly once, on both engines: the closed
// idle connection is never used, or the request that met it (provably
// never read) goes out once more on a fresh one.
func TestIdleConnectionClosedByNginx(t *testing.T) {
	if testing.Short() {
		t.Skip("a 13 s run")
	}
	engines := []string{EngineFasthttp, EngineLoop}
	for _, engine := range engines {
		t.Run(engine, func(t *testing.T) {
			t.Parallel()
			addr, accessLog := startNginx(t, "keepalive_timeout 2s;")
			const n = 6
			s := schedule(addr, n, 2500*time.Millisecond)
			s.Targets[0].Connections = 1
			out, rows := runPlan(t, s, Options{Engine: engine})
			checkOneRowPerSlot(t, rows, n)
			for _, r := range rows {
				if r.Error != results.None || r.Status != 200 {
					t.Errorf("slot %d: status %d error %v", r.Slot, r.Status, r.Error)
				}
			}
			log := awaitLogLines(t, accessLog, n)
			if lines := bytes.Count(log, []byte("\n")); lines != n || out.OK != n {
				t.Fatalf("%d of %d ok; nginx logged %d requests:\n%s", out.OK, n, lines, log)
			}
		})
	}
}

// awaitLogLines waits until nginx's access log at path holds n lines, or 5 s
// went by, and returns what it holds. nginx writes a request's line as the
// request ends, which can be after its response reached the client: the
// last line of a run was missing now and then when the log was read as the
// run ended.
func awaitLogLines(t *testing.T, path string, n int) []byte {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if bytes.Count(b, []byte("\n")) >= n || time.Now().After(deadline) {
			return b
		}
	}
}
