package examples_test

import (
	"io"
	"net"
	"net/http"
	"path/filepath"
	"runtime"
	"sync/atomic"
	"testing"

	"github.com/tressi/tressi/compile"
	"github.com/tressi/tressi/exec"
	"github.com/tressi/tressi/plan"
)

// examples/http2.hcl runs as written, as h2c against Go's own HTTP/2
// server: every request answered, every one over HTTP/2.
func TestHTTP2ExampleRuns(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("HTTP/2 runs on the loop engine, Linux only")
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var h2 atomic.Int64
	srv := &http.Server{Protocols: new(http.Protocols), Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.ProtoMajor == 2 {
			h2.Add(1)
		}
		io.Copy(io.Discard, r.Body)
		io.WriteString(w, `{"ok":true}`)
	})}
	srv.Protocols.SetUnencryptedHTTP2(true)
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	vars := []plan.VarArg{{Value: "base_url=http://" + ln.Addr().String()}, {Value: "protocol=h2c"}, {Value: "rate=200"}, {Value: "duration=1s"}}
	p, _, diags := plan.Load(plan.Options{Path: "http2.hcl", Vars: vars})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	s, diags := compile.Compile(p)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	out, err := exec.Run(t.Context(), s, exec.Options{OutDir: filepath.Join(t.TempDir(), "run")})
	if err != nil {
		t.Fatal(err)
	}
	if out.Requests != 200 || out.OK != 200 || h2.Load() != 200 || out.Engine != exec.EngineLoop {
		t.Fatalf("outcome %+v; %d requests came over HTTP/2", out, h2.Load())
	}
}
