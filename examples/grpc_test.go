package examples_test

import (
	"crypto/tls"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"google.golang.org/grpc/codes"

	"github.com/tressi/tressi/compile"
	"github.com/tressi/tressi/exec"
	"github.com/tressi/tressi/plan"
	"github.com/tressi/tressi/testserver"
	"github.com/tressi/tressi/testserver/grpctarget"
)

// examples/grpc runs as its comment says against the built-in gRPC target,
// over h2c and over h2 with a private CA (ALPN h2): every call answered,
// as many OK and NOT_FOUND as the server counted.
func TestGRPCExampleRunsAgainstTheBuiltInTarget(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("gRPC runs on the loop engine, Linux only")
	}
	if b, err := os.ReadFile(filepath.Join("grpc", grpctarget.ProtoName)); err != nil || string(b) != string(grpctarget.Proto) {
		t.Fatalf("examples/grpc/%s differs from testserver/grpctarget's (%v): copy it over", grpctarget.ProtoName, err)
	}
	cert, caFile := privateCA(t, "grpc.test")
	for _, tc := range []struct {
		name, scheme string
		tls          *tls.Config
		vars         []string
	}{
		{"h2c", "http://", nil, nil},
		{"h2 with a private CA", "grpcs://", testserver.H2TLSConfig(&tls.Config{Certificates: []tls.Certificate{cert}}),
			[]string{"ca_file=" + caFile, "server_name=grpc.test"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ln, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			if tc.tls != nil {
				ln = tls.NewListener(ln, tc.tls)
			}
			srv, err := grpctarget.New(grpctarget.Options{})
			if err != nil {
				t.Fatal(err)
			}
			go srv.Serve(ln)
			t.Cleanup(srv.Stop)
			vars := []plan.VarArg{{Value: "base_url=" + tc.scheme + ln.Addr().String()}, {Value: "rate=200"}, {Value: "duration=1s"}}
			for _, v := range tc.vars {
				vars = append(vars, plan.VarArg{Value: v})
			}
			p, _, diags := plan.Load(plan.Options{Path: "grpc", Vars: vars})
			if diags.HasErrors() || len(diags) > 0 {
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
			calls := srv.Calls()
			key := func(c codes.Code) grpctarget.Key { return grpctarget.Key{Method: "/tressibench.Echo/Unary", Code: c} }
			if out.Requests != 200 || out.OK != 200 || calls[key(codes.OK)]+calls[key(codes.NotFound)] != 200 || calls[key(codes.NotFound)] != 20 {
				t.Fatalf("outcome %+v; the server counted %v", out, calls)
			}
		})
	}
}
