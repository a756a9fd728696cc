package cli

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"testing"
	"time"

	"golang.org/x/net/http2"
	"golang.org/x/net/http2/hpack"
	ggrpc "google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/dynamicpb"

	tgrpc "github.com/tressi/tressi/grpc"
	"github.com/tressi/tressi/testserver/grpctarget"
)

// wireCall is one request as a server saw it on the wire.
type wireCall struct {
	fields map[string]string
	body   []byte
}

// captureServer answers every HTTP/2 stream with an empty OK gRPC reply
// and hands over what each stream sent: its header fields and DATA.
func captureServer(t *testing.T) (string, <-chan wireCall) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	calls := make(chan wireCall, 16)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go serveCapture(c, calls)
		}
	}()
	return ln.Addr().String(), calls
}

func serveCapture(c net.Conn, calls chan<- wireCall) {
	defer c.Close()
	preface := make([]byte, len(http2.ClientPreface))
	if _, err := io.ReadFull(c, preface); err != nil {
		return
	}
	fr := http2.NewFramer(c, c)
	fr.ReadMetaHeaders = hpack.NewDecoder(4096, nil)
	fr.WriteSettings()
	streams := map[uint32]*wireCall{}
	var hbuf bytes.Buffer
	enc := hpack.NewEncoder(&hbuf)
	block := func(fields ...string) []byte {
		hbuf.Reset()
		for i := 0; i < len(fields); i += 2 {
			enc.WriteField(hpack.HeaderField{Name: fields[i], Value: fields[i+1]})
		}
		return append([]byte(nil), hbuf.Bytes()...)
	}
	for {
		f, err := fr.ReadFrame()
		if err != nil {
			return
		}
		var end bool
		var id uint32
		switch f := f.(type) {
		case *http2.SettingsFrame:
			if !f.IsAck() {
				fr.WriteSettingsAck()
			}
		case *http2.PingFrame:
			if !f.IsAck() {
				fr.WritePing(true, f.Data)
			}
		case *http2.MetaHeadersFrame:
			id, end = f.StreamID, f.StreamEnded()
			wc := &wireCall{fields: map[string]string{}}
			for _, hf := range f.Fields {
				wc.fields[hf.Name] = hf.Value
			}
			streams[id] = wc
		case *http2.DataFrame:
			id, end = f.StreamID, f.StreamEnded()
			if wc := streams[id]; wc != nil {
				wc.body = append(wc.body, f.Data()...)
			}
			if n := len(f.Data()); n > 0 {
				fr.WriteWindowUpdate(0, uint32(n))
			}
		}
		if wc := streams[id]; end && wc != nil {
			delete(streams, id)
			calls <- *wc
			fr.WriteHeaders(http2.HeadersFrameParam{StreamID: id, EndHeaders: true,
				BlockFragment: block(":status", "200", "content-type", "application/grpc")})
			fr.WriteData(id, false, tgrpc.AppendMessage(nil, nil, false))
			fr.WriteHeaders(http2.HeadersFrameParam{StreamID: id, EndHeaders: true, EndStream: true,
				BlockFragment: block("grpc-status", "0")})
		}
	}
}

// TestGRPCWireAsGRPCGo makes one call with tressi and the same call with
// grpc-go's client, to a server that records what arrives, and compares
// the two: the method, the gRPC headers, the metadata and the message
// (field by field, and byte for byte for a message whose field order is
// the same in both encoders).
func TestGRPCWireAsGRPCGo(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("gRPC runs on the loop engine's HTTP/2 client, Linux only")
	}
	addr, calls := captureServer(t)
	dir := t.TempDir()
	planText := `target "echo" {
  url         = "grpc://` + addr + `"
  connections = 1
  proto {
    files = ["tressibench.proto"]
  }
}
endpoint "one" {
  rpc      = "tressibench.Echo/Unary"
  message  = { text = "hello ${seq}", id = 41, inner = { note = "n", n = 7 }, tags = ["a", "b"], flag = true, kind = "KIND_A" }
  metadata = { "x-tenant" = "a", "trace-bin" = "\u0001\u0002" }
  deadline = "3s"
}
load {
  stage {
    duration = "1s"
    rate     = 1
  }
}
`
	planFile := filepath.Join(dir, "one.hcl")
	if err := os.WriteFile(planFile, []byte(planText), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, grpctarget.ProtoName), grpctarget.Proto, 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := run(t, nil, "apply", planFile, "--quiet", "-o", filepath.Join(dir, "run"))
	if code != ExitOK {
		t.Fatalf("apply exit %d\n%s\n%s", code, stdout, stderr)
	}
	ours := receive(t, calls)

	sc, err := grpctarget.Schema()
	if err != nil {
		t.Fatal(err)
	}
	md, _ := sc.Method("tressibench.Echo/Unary")
	in := md.Input()
	msg := dynamicpb.NewMessage(in)
	set := func(name string, v protoreflect.Value) { msg.Set(in.Fields().ByName(protoreflect.Name(name)), v) }
	set("text", protoreflect.ValueOfString("hello 0"))
	set("id", protoreflect.ValueOfInt64(41))
	inner := dynamicpb.NewMessage(in.Fields().ByName("inner").Message())
	inner.Set(inner.Descriptor().Fields().ByName("note"), protoreflect.ValueOfString("n"))
	inner.Set(inner.Descriptor().Fields().ByName("n"), protoreflect.ValueOfUint32(7))
	set("inner", protoreflect.ValueOfMessage(inner))
	tags := msg.Mutable(in.Fields().ByName("tags")).List()
	tags.Append(protoreflect.ValueOfString("a"))
	tags.Append(protoreflect.ValueOfString("b"))
	set("flag", protoreflect.ValueOfBool(true))
	set("kind", protoreflect.ValueOfEnum(1))
	cc, err := ggrpc.NewClient(addr, ggrpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer cc.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	ctx = metadata.AppendToOutgoingContext(ctx, "x-tenant", "a", "trace-bin", "\x01\x02")
	if err := cc.Invoke(ctx, "/tressibench.Echo/Unary", msg, dynamicpb.NewMessage(md.Output())); err != nil {
		t.Fatal(err)
	}
	theirs := receive(t, calls)

	// Fields both send, and must send alike. grpc-go adds user-agent and
	// its own deadline (what is left of ctx), and tressi content-length.
	for _, name := range []string{":method", ":scheme", ":path", ":authority", "content-type", "te", "x-tenant", "trace-bin"} {
		if ours.fields[name] != theirs.fields[name] {
			t.Errorf("%s: tressi sent %q, grpc-go %q", name, ours.fields[name], theirs.fields[name])
		}
	}
	if d, ok := tgrpc.ParseTimeout(ours.fields["grpc-timeout"]); !ok || d != 3*time.Second {
		t.Errorf("grpc-timeout %q, want 3 s", ours.fields["grpc-timeout"])
	}
	for name := range ours.fields {
		if _, ok := theirs.fields[name]; !ok && name != "content-length" {
			t.Errorf("tressi sent %s, which grpc-go does not", name)
		}
	}
	if !bytes.Equal(ours.body[:1], theirs.body[:1]) || len(ours.body) != len(theirs.body) {
		t.Fatalf("framed messages differ in flag or length: %x and %x", ours.body, theirs.body)
	}
	a, b := dynamicpb.NewMessage(in), dynamicpb.NewMessage(in)
	if err := proto.Unmarshal(ours.body[tgrpc.PrefixLen:], a); err != nil {
		t.Fatal(err)
	}
	if err := proto.Unmarshal(theirs.body[tgrpc.PrefixLen:], b); err != nil {
		t.Fatal(err)
	}
	if !proto.Equal(a, b) {
		t.Fatalf("messages differ:\ntressi  %v\ngrpc-go %v", a, b)
	}
	if want, _ := (proto.MarshalOptions{Deterministic: true}).Marshal(msg); !bytes.Equal(ours.body[tgrpc.PrefixLen:], want) {
		t.Fatalf("tressi's message %x, protobuf-go's deterministic encoding %x", ours.body[tgrpc.PrefixLen:], want)
	}
	t.Logf("fields tressi %s; grpc-go %s", keys(ours.fields), keys(theirs.fields))
}

func receive(t *testing.T, calls <-chan wireCall) wireCall {
	t.Helper()
	select {
	case c := <-calls:
		return c
	case <-time.After(10 * time.Second):
		t.Fatal("no call arrived")
	}
	return wireCall{}
}

func keys(m map[string]string) string {
	var out []string
	for k, v := range m {
		out = append(out, fmt.Sprintf("%s=%q", k, v))
	}
	sort.Strings(out)
	return strings.Join(out, " ")
}
