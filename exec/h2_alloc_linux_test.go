package exec

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"testing"
)

// TestH2CServerProcess is not a test: run by h2cServerProcess with
// TRESSI_TEST_H2C_SERVER set, it is Go's HTTP/2 server in a process of its
// own, printing its address and serving until its stdin closes.
func TestH2CServerProcess(t *testing.T) {
	if os.Getenv("TRESSI_TEST_H2C_SERVER") == "" {
		t.Skip("the server process of TestH2LoopAllocatesNothingPerRequest")
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Protocols: new(http.Protocols), Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "ok")
	})}
	srv.Protocols.SetUnencryptedHTTP2(true)
	go srv.Serve(ln)
	fmt.Println(ln.Addr())
	io.Copy(io.Discard, os.Stdin)
}

// h2cServerProcess starts TestH2CServerProcess in a child process, so its
// allocations are not counted as tressi's.
func h2cServerProcess(t *testing.T) string {
	cmd := exec.Command(os.Args[0], "-test.run=^TestH2CServerProcess$")
	cmd.Env = append(os.Environ(), "TRESSI_TEST_H2C_SERVER=1")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { stdin.Close(); cmd.Wait() })
	addr, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		t.Fatalf("the server process: %v", err)
	}
	return strings.TrimSpace(addr)
}

// In steady state an HTTP/2 request and its answer allocate nothing in
// tressi. (The server is Go's, which honours our SETTINGS_HEADER_TABLE_SIZE
// of 0; nginx marks date, content-type and content-length for indexing
// whatever the setting, and x/net's hpack decoder then makes strings of
// them: about 3 small allocations per response.)
func TestH2LoopAllocatesNothingPerRequest(t *testing.T) {
	if testing.Short() {
		t.Skip("a 1 s run")
	}
	addr := h2cServerProcess(t)
	src := fmt.Sprintf(`
target "t" {
  url         = "http://%s"
  protocol    = "h2c"
  connections = 2
  max_streams = 4
}
endpoint "root" {
  path = "/"
}
load {
  model = "closed"
  stage {
    duration = "1s"
    users    = 8
  }
}
`, addr)
	s := compilePlan(t, src, nil)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	out, err := Run(t.Context(), s, Options{OutDir: t.TempDir() + "/run", Engine: EngineLoop})
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	if out.Requests < 2000 || out.OK != out.Requests {
		t.Fatalf("outcome %+v: want at least 2000 ok requests in 1 s", out)
	}
	perRequest := float64(after.Mallocs-before.Mallocs) / float64(out.Requests)
	t.Logf("%d requests, %.3f allocations per request", out.Requests, perRequest)
	if perRequest > 0.2 {
		t.Fatalf("%.2f allocations per request: something on the HTTP/2 path allocates", perRequest)
	}
}
