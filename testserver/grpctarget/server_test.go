package grpctarget

import (
	"context"
	"errors"
	"io"
	"net"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/dynamicpb"
)

func start(t *testing.T) (*Server, *grpc.ClientConn) {
	t.Helper()
	srv, err := New(Options{})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go srv.Serve(ln)
	t.Cleanup(srv.Stop)
	cc, err := grpc.NewClient(ln.Addr().String(), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cc.Close() })
	return srv, cc
}

func (s *Server) request(text string, code codes.Code) *dynamicpb.Message {
	m := dynamicpb.NewMessage(s.req)
	m.Set(s.req.Fields().ByName("text"), protoreflect.ValueOfString(text))
	m.Set(s.req.Fields().ByName("code"), protoreflect.ValueOfInt32(int32(code)))
	return m
}

func (s *Server) textOf(m *dynamicpb.Message) string { return m.Get(s.fields.text).String() }

// TestEveryCallKindCounted makes calls of all four kinds with grpc-go's
// client, some failing on purpose, and checks the server's counters.
func TestEveryCallKindCounted(t *testing.T) {
	srv, cc := start(t)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()

	out := dynamicpb.NewMessage(srv.replyType)
	if err := cc.Invoke(ctx, methodUnary, srv.request("hi", 0), out); err != nil || srv.textOf(out) != "hi" {
		t.Fatalf("unary: %v, %q", err, srv.textOf(out))
	}
	err := cc.Invoke(ctx, methodUnary, srv.request("x", codes.NotFound), out)
	if status.Code(err) != codes.NotFound {
		t.Fatalf("unary asked to fail NOT_FOUND: %v", err)
	}

	ss, err := cc.NewStream(ctx, &grpc.StreamDesc{ServerStreams: true}, methodServerStream)
	if err != nil {
		t.Fatal(err)
	}
	req := srv.request("s", 0)
	req.Set(srv.req.Fields().ByName("count"), protoreflect.ValueOfInt32(3))
	if err := ss.SendMsg(req); err != nil {
		t.Fatal(err)
	}
	ss.CloseSend()
	n := 0
	for {
		if err := ss.RecvMsg(dynamicpb.NewMessage(srv.replyType)); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		n++
	}
	if n != 3 {
		t.Fatalf("server stream sent %d replies, want 3", n)
	}

	cs, err := cc.NewStream(ctx, &grpc.StreamDesc{ClientStreams: true}, methodClientStream)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 4; i++ {
		cs.SendMsg(srv.request("c", 0))
	}
	cs.CloseSend()
	got := dynamicpb.NewMessage(srv.replyType)
	if err := cs.RecvMsg(got); err != nil || got.Get(srv.fields.received).Int() != 4 {
		t.Fatalf("client stream: %v, received %d", err, got.Get(srv.fields.received).Int())
	}

	bs, err := cc.NewStream(ctx, &grpc.StreamDesc{ClientStreams: true, ServerStreams: true}, methodBidi)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 2; i++ {
		bs.SendMsg(srv.request("b", 0))
		if err := bs.RecvMsg(dynamicpb.NewMessage(srv.replyType)); err != nil {
			t.Fatal(err)
		}
	}
	bs.SendMsg(srv.request("b", codes.ResourceExhausted))
	if err := bs.RecvMsg(dynamicpb.NewMessage(srv.replyType)); status.Code(err) != codes.ResourceExhausted {
		t.Fatalf("bidi asked to fail RESOURCE_EXHAUSTED: %v", err)
	}

	want := map[Key]int64{
		{methodUnary, codes.OK}: 1, {methodUnary, codes.NotFound}: 1, {methodServerStream, codes.OK}: 1,
		{methodClientStream, codes.OK}: 1, {methodBidi, codes.ResourceExhausted}: 1,
	}
	deadline := time.Now().Add(5 * time.Second)
	for len(srv.Calls()) < len(want) && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond) // the bidi handler returns after the client read its status
	}
	calls := srv.Calls()
	if len(calls) != len(want) {
		t.Fatalf("counters %v, want %v", calls, want)
	}
	for k, v := range want {
		if calls[k] != v {
			t.Errorf("%s %s: %d calls, want %d", k.Method, k.Code, calls[k], v)
		}
	}
	if m := srv.Messages(); m[methodClientStream] != 4 || m[methodBidi] != 3 {
		t.Errorf("messages read: %v", m)
	}

	hc := healthpb.NewHealthClient(cc)
	if r, err := hc.Check(ctx, &healthpb.HealthCheckRequest{Service: Service}); err != nil || r.Status != healthpb.HealthCheckResponse_SERVING {
		t.Fatalf("health: %v, %v", r, err)
	}
}

func TestStallHoldsCalls(t *testing.T) {
	srv, cc := start(t)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	srv.Stall(300 * time.Millisecond)
	began := time.Now()
	if err := cc.Invoke(ctx, methodUnary, srv.request("late", 0), dynamicpb.NewMessage(srv.replyType)); err != nil {
		t.Fatal(err)
	}
	if took := time.Since(began); took < 200*time.Millisecond {
		t.Fatalf("a call inside a 300 ms stall took %v", took)
	}
}
