package schema_test

import (
	"context"
	"flag"
	"io"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tressi/tressi/grpc/schema"
	"github.com/tressi/tressi/testserver/grpctarget"
)

var update = flag.Bool("update", false, "rewrite testdata/shop.protoset")

func openUnder(t *testing.T) func(string) (io.ReadCloser, error) {
	return func(p string) (io.ReadCloser, error) { return os.Open(p) }
}

func TestFromProtoFilesWithImports(t *testing.T) {
	sc, err := schema.FromProtoFiles(context.Background(), []string{"shop/cart.proto"},
		[]string{"testdata/protos"}, openUnder(t))
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(sc.Services(), ","); got != "shop.Cart" {
		t.Fatalf("services = %q, want shop.Cart", got)
	}
	m, err := sc.Method("shop.Cart/Watch")
	if err != nil {
		t.Fatal(err)
	}
	if !m.IsStreamingServer() || m.IsStreamingClient() || m.Input().FullName() != "shop.AddRequest" {
		t.Fatalf("shop.Cart/Watch: server streaming %v, client streaming %v, input %s",
			m.IsStreamingServer(), m.IsStreamingClient(), m.Input().FullName())
	}
	if f := m.Input().Fields().ByName("at"); f == nil || f.Message().FullName() != "google.protobuf.Timestamp" {
		t.Fatal("the well-known Timestamp import did not resolve")
	}
	golden := filepath.Join("testdata", "shop.protoset")
	if *update {
		if err := os.WriteFile(golden, sc.Protoset(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run go test -update to write it)", err)
	}
	if string(want) != string(sc.Protoset()) {
		t.Fatal("the protoset differs from testdata/shop.protoset: the bytes a .tplan embeds (and hashes) changed; go test -update if that is meant")
	}
}

func TestProtosetRoundTrip(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "shop.protoset"))
	if err != nil {
		t.Fatal(err)
	}
	sc, err := schema.FromProtoset(data)
	if err != nil {
		t.Fatal(err)
	}
	if string(sc.Protoset()) != string(data) {
		t.Fatal("a protoset read back serializes differently: replays would hash another schedule")
	}
	if _, err := sc.Method("/shop.Cart/Add"); err != nil {
		t.Fatal(err)
	}
}

func TestErrorsSayWhatToDo(t *testing.T) {
	sc, err := schema.FromProtoFiles(context.Background(), []string{"shop/cart.proto"}, []string{"testdata/protos"}, openUnder(t))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct{ method, want string }{
		{"shop.Cart", `write it as "package.Service/Method"`},
		{"shop.Basket/Add", "no service \"shop.Basket\" in the schema; it has shop.Cart"},
		{"shop.Cart/Remove", "service shop.Cart has no method \"Remove\"; it has Add, Watch"},
	}
	for _, tt := range tests {
		_, err := sc.Method(tt.method)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Method(%q) = %v, want it to say %q", tt.method, err, tt.want)
		}
	}
	_, err = schema.FromProtoFiles(context.Background(), []string{"broken.proto"}, []string{"testdata/protos"}, openUnder(t))
	if err == nil || !strings.Contains(err.Error(), "broken.proto:7:") {
		t.Errorf("a syntax error = %v, want its file and line (broken.proto:7:...)", err)
	}
	_, err = schema.FromProtoFiles(context.Background(), []string{"nowhere.proto"}, []string{"testdata/protos"}, openUnder(t))
	if err == nil || !strings.Contains(err.Error(), "import_paths") {
		t.Errorf("a missing file = %v, want it to name import_paths", err)
	}
	if _, err := schema.FromProtoset([]byte("not a protoset")); err == nil {
		t.Error("garbage read as a protoset")
	}
}

// TestFromReflection reads the built-in target's schema over h2c, from
// reflection v1 and from a server that has only v1alpha, and gets the
// same bytes as compiling its .proto.
func TestFromReflection(t *testing.T) {
	fromFile, err := grpctarget.Schema()
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range []grpctarget.Options{{}, {NoReflectionV1: true}} {
		base := serve(t, o)
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		sc, err := schema.FromReflection(ctx, base, nil)
		cancel()
		if err != nil {
			t.Fatalf("v1alpha only %v: %v", o.NoReflectionV1, err)
		}
		if _, err := sc.Method("tressibench.Echo/Bidi"); err != nil {
			t.Fatal(err)
		}
		if got := strings.Join(sc.Services(), ","); !strings.Contains(got, "tressibench.Echo") || !strings.Contains(got, "grpc.health.v1.Health") {
			t.Fatalf("services = %s", got)
		}
		echo, err := sc.Method("tressibench.Echo/Unary")
		if err != nil {
			t.Fatal(err)
		}
		want, _ := fromFile.Method("tressibench.Echo/Unary")
		if echo.Input().Fields().Len() != want.Input().Fields().Len() {
			t.Fatalf("reflection's EchoRequest has %d fields, the .proto's %d", echo.Input().Fields().Len(), want.Input().Fields().Len())
		}
	}
	base := serve(t, grpctarget.Options{NoReflection: true})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := schema.FromReflection(ctx, base, nil); err == nil || !strings.Contains(err.Error(), "UNIMPLEMENTED") {
		t.Fatalf("a server without reflection: %v, want UNIMPLEMENTED", err)
	}
}

func serve(t *testing.T, o grpctarget.Options) *url.URL {
	t.Helper()
	srv, err := grpctarget.New(o)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go srv.Serve(ln)
	t.Cleanup(srv.Stop)
	return &url.URL{Scheme: "http", Host: ln.Addr().String()}
}
