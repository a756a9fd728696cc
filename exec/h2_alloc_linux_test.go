package exec

import (
	"fmt"
	"io"
	"net/http"
	"runtime"
	"testing"

	"github.com/tressi/tressi/testserver/child"
)

// runHelperH2CServer is Go's HTTP/2 server in cleartext, answering "ok",
// in a process of its own (helperServer(t, "h2c")): it honours our
// SETTINGS_HEADER_TABLE_SIZE of 0, so its answers cost tressi no strings.
func runHelperH2CServer() {
	ln := child.Listen(false)
	srv := &http.Server{Protocols: new(http.Protocols), Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "ok")
	})}
	srv.Protocols.SetUnencryptedHTTP2(true)
	go srv.Serve(ln)
	child.Serve(ln)
}

// In steady state an HTTP/2 request and its answer allocate nothing in
// tressi, whatever the server does with its header table: Go's server
// honours our SETTINGS_HEADER_TABLE_SIZE of 0 and sends literals we skip;
// nginx marks server, date, content-type and content-length for indexing
// whatever the setting, which x/net's decoder can only decode into strings
// (about 4 allocations a response) but the header-block memo answers from
// what it decoded before (h2/memo.go). Both servers run in processes of
// their own, so the count is tressi's.
func TestH2LoopAllocatesNothingPerRequest(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("1 s runs, counting allocations (the race detector's among them)")
	}
	for _, server := range []string{"go", "nginx"} {
		t.Run(server, func(t *testing.T) {
			var addr string
			if server == "go" {
				addr = helperServer(t, "h2c")
			} else {
				// nginx ends a connection by GOAWAY after 1000 requests
				// by default: not what this test is about.
				addr, _ = startNginxServer(t, "http2", "keepalive_requests 1000000; access_log off;", "")
			}
			h2AllocRun(t, addr)
		})
	}
}

func h2AllocRun(t *testing.T, addr string) {
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
