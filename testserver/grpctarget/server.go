// Package grpctarget is the built-in gRPC target: a grpc-go server on
// loopback with the tressibench.Echo service (one method per call kind),
// the standard health and reflection services, exact counters of calls by
// method and status code, calls that fail on purpose (a request's code
// field) and a stall window, so a load test's counts and corrected latency
// can be checked against what the server saw.
//
// The service is defined by tressibench.proto, compiled at start with
// tressi's own schema package and served through dynamic messages: no
// generated code, and the same file is what plans name.
package grpctarget

import (
	"bytes"
	"context"
	_ "embed"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"net"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/health"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/reflection"
	reflectionv1 "google.golang.org/grpc/reflection/grpc_reflection_v1"
	reflectionv1alpha "google.golang.org/grpc/reflection/grpc_reflection_v1alpha"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
	"google.golang.org/protobuf/types/descriptorpb"

	tgrpc "github.com/tressi/tressi/grpc"
	"github.com/tressi/tressi/grpc/schema"
)

// Proto is tressibench.proto, the service's definition.
//
//go:embed tressibench.proto
var Proto []byte

// ProtoName is the file name plans import it by.
const ProtoName = "tressibench.proto"

// Service is the echo service's full name.
const Service = "tressibench.Echo"

// MaxDelay caps a request's delay_ms.
const MaxDelay = 60 * time.Second

// Key names a counter: a full method ("/tressibench.Echo/Unary") and the
// status code the call ended with.
type Key struct {
	Method string
	Code   codes.Code
}

// Server is the gRPC target.
type Server struct {
	srv       *grpc.Server
	files     *protoregistry.Files
	req       protoreflect.MessageDescriptor
	replyType protoreflect.MessageDescriptor
	fields    replyFields

	mu       sync.Mutex
	calls    map[Key]int64
	messages map[string]int64 // request messages read, by method
	replies  map[string]int64 // reply messages sent, by method

	stallUntil atomic.Int64
	done       chan struct{}
	closeOnce  sync.Once
}

// New builds the server: Echo, health (SERVING) and reflection v1 and
// v1alpha.
func New(o Options) (*Server, error) {
	sc, err := Schema()
	if err != nil {
		return nil, err
	}
	files, err := filesOf(sc)
	if err != nil {
		return nil, err
	}
	s := &Server{files: files, calls: map[Key]int64{}, messages: map[string]int64{}, replies: map[string]int64{}, done: make(chan struct{})}
	d, err := files.FindDescriptorByName("tressibench.EchoRequest")
	if err != nil {
		return nil, err
	}
	s.req = d.(protoreflect.MessageDescriptor)
	d, err = files.FindDescriptorByName("tressibench.EchoReply")
	if err != nil {
		return nil, err
	}
	s.replyType = d.(protoreflect.MessageDescriptor)
	s.fields = replyFieldsOf(s.replyType)
	s.srv = grpc.NewServer(grpc.ChainUnaryInterceptor(s.countUnary), grpc.ChainStreamInterceptor(s.countStream))
	s.srv.RegisterService(s.serviceDesc(), s)
	hs := health.NewServer()
	hs.SetServingStatus(Service, healthpb.HealthCheckResponse_SERVING)
	healthpb.RegisterHealthServer(s.srv, hs)
	if !o.NoReflection {
		ro := reflection.ServerOptions{Services: s.srv, DescriptorResolver: resolver{files}}
		if !o.NoReflectionV1 {
			reflectionv1.RegisterServerReflectionServer(s.srv, reflection.NewServerV1(ro))
		}
		reflectionv1alpha.RegisterServerReflectionServer(s.srv, reflection.NewServer(ro))
	}
	return s, nil
}

// Options choose what the server offers beside Echo and health.
type Options struct {
	// NoReflection leaves the reflection services out.
	NoReflection bool
	// NoReflectionV1 serves only v1alpha reflection, as older servers do.
	NoReflectionV1 bool
}

// resolver finds the echo service's files first, then those compiled into
// the binary (health, reflection), for the reflection service.
type resolver struct{ files *protoregistry.Files }

func (r resolver) FindFileByPath(p string) (protoreflect.FileDescriptor, error) {
	if fd, err := r.files.FindFileByPath(p); err == nil {
		return fd, nil
	}
	return protoregistry.GlobalFiles.FindFileByPath(p)
}

func (r resolver) FindDescriptorByName(n protoreflect.FullName) (protoreflect.Descriptor, error) {
	if d, err := r.files.FindDescriptorByName(n); err == nil {
		return d, nil
	}
	return protoregistry.GlobalFiles.FindDescriptorByName(n)
}

// Schema is the service's schema, compiled from Proto.
func Schema() (*schema.Schema, error) {
	sc, err := schema.FromProtoFiles(context.Background(), []string{ProtoName}, nil, Open)
	if err != nil {
		return nil, fmt.Errorf("grpctarget: %s does not compile: %v", ProtoName, err)
	}
	return sc, nil
}

// Open reads ProtoName (and nothing else) for a proto compiler.
func Open(path string) (io.ReadCloser, error) {
	if path != ProtoName {
		return nil, fs.ErrNotExist
	}
	return io.NopCloser(bytes.NewReader(Proto)), nil
}

func filesOf(sc *schema.Schema) (*protoregistry.Files, error) {
	var set descriptorpb.FileDescriptorSet
	if err := proto.Unmarshal(sc.Protoset(), &set); err != nil {
		return nil, err
	}
	return protodesc.NewFiles(&set)
}

// Serve answers on ln until Stop.
func (s *Server) Serve(ln net.Listener) error { return s.srv.Serve(ln) }

// Stop ends every call at once and closes the listeners; stalled and
// delayed calls return.
func (s *Server) Stop() {
	s.closeOnce.Do(func() { close(s.done) })
	s.srv.Stop()
}

// Stall makes every call that arrives within the next d wait until the
// window ends, like a server pausing for a GC: a generator that times
// from when a call was due sees the stall, one that times from its send
// hides it.
func (s *Server) Stall(d time.Duration) { s.stallUntil.Store(time.Now().Add(d).UnixNano()) }

func (s *Server) waitStall() {
	if until := s.stallUntil.Load(); until != 0 {
		s.sleep(time.Until(time.Unix(0, until)))
	}
}

func (s *Server) sleep(d time.Duration) {
	if d <= 0 {
		return
	}
	t := time.NewTimer(min(d, MaxDelay))
	defer t.Stop()
	select {
	case <-t.C:
	case <-s.done:
	}
}

// Calls returns the calls ended so far, by method and code.
func (s *Server) Calls() map[Key]int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return maps.Clone(s.calls)
}

// Messages returns how many request messages each method read.
func (s *Server) Messages() map[string]int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return maps.Clone(s.messages)
}

// Replies returns how many reply messages each method sent.
func (s *Server) Replies() map[string]int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return maps.Clone(s.replies)
}

func (s *Server) replied(method string) {
	s.mu.Lock()
	s.replies[method]++
	s.mu.Unlock()
}

// Summary prints the counters one "method code count" line each, sorted.
func (s *Server) Summary() string {
	var lines []string
	for k, n := range s.Calls() {
		lines = append(lines, fmt.Sprintf("%s %s %d", k.Method, tgrpc.Code(k.Code).String(), n))
	}
	slices.Sort(lines)
	return strings.Join(lines, "\n")
}

func (s *Server) count(method string, err error) {
	s.mu.Lock()
	s.calls[Key{Method: method, Code: status.Code(err)}]++
	s.mu.Unlock()
}

func (s *Server) received(method string) {
	s.mu.Lock()
	s.messages[method]++
	s.mu.Unlock()
}

func (s *Server) countUnary(ctx context.Context, req any, info *grpc.UnaryServerInfo, h grpc.UnaryHandler) (any, error) {
	resp, err := h(ctx, req)
	if strings.HasPrefix(info.FullMethod, "/"+Service+"/") {
		s.count(info.FullMethod, err)
	}
	return resp, err
}

func (s *Server) countStream(srv any, ss grpc.ServerStream, info *grpc.StreamServerInfo, h grpc.StreamHandler) error {
	err := h(srv, ss)
	if strings.HasPrefix(info.FullMethod, "/"+Service+"/") {
		counted := err
		if d, ok := ss.Context().Deadline(); ok && !time.Now().Before(d) {
			// Whatever the handler said as the deadline passed (its sends
			// may still have gone into the transport's buffer, and it may
			// even return nil), the call ended at it, as the client sees it.
			counted = status.Error(codes.DeadlineExceeded, "deadline")
		}
		s.count(info.FullMethod, counted)
	}
	return err
}
