package grpctarget

import (
	"context"
	"errors"
	"io"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/dynamicpb"
)

// replyFields are the EchoReply fields the handlers set, and the
// EchoRequest fields they read, looked up once.
type replyFields struct {
	text, id, seq, received protoreflect.FieldDescriptor
}

func replyFieldsOf(md protoreflect.MessageDescriptor) replyFields {
	f := md.Fields()
	return replyFields{text: f.ByName("text"), id: f.ByName("id"), seq: f.ByName("seq"), received: f.ByName("received")}
}

// request is what a handler needs of one EchoRequest.
type request struct {
	text    string
	id      int64
	code    codes.Code
	message string
	delay   time.Duration
	count   int
}

func (s *Server) decode(m *dynamicpb.Message) request {
	f := s.req.Fields()
	r := request{
		text:    m.Get(f.ByName("text")).String(),
		id:      m.Get(f.ByName("id")).Int(),
		code:    codes.Code(m.Get(f.ByName("code")).Int()),
		message: m.Get(f.ByName("message")).String(),
		delay:   time.Duration(m.Get(f.ByName("delay_ms")).Int()) * time.Millisecond,
		count:   int(m.Get(f.ByName("count")).Int()),
	}
	return r
}

// failure is the status a request asks to end with, or nil.
func (r request) failure() error {
	if r.code == codes.OK {
		return nil
	}
	msg := r.message
	if msg == "" {
		msg = "failed on purpose"
	}
	return status.Error(r.code, msg)
}

func (s *Server) newReply(text string, id, seq, received int64) *dynamicpb.Message {
	m := dynamicpb.NewMessage(s.replyType)
	m.Set(s.fields.text, protoreflect.ValueOfString(text))
	m.Set(s.fields.id, protoreflect.ValueOfInt64(id))
	m.Set(s.fields.seq, protoreflect.ValueOfInt64(seq))
	m.Set(s.fields.received, protoreflect.ValueOfInt64(received))
	return m
}

func (s *Server) serviceDesc() *grpc.ServiceDesc {
	return &grpc.ServiceDesc{
		ServiceName: Service,
		HandlerType: (*any)(nil),
		Methods:     []grpc.MethodDesc{{MethodName: "Unary", Handler: s.unaryHandler}},
		Streams: []grpc.StreamDesc{
			{StreamName: "ServerStream", Handler: s.serverStream, ServerStreams: true},
			{StreamName: "ClientStream", Handler: s.clientStream, ClientStreams: true},
			{StreamName: "Bidi", Handler: s.bidi, ServerStreams: true, ClientStreams: true},
		},
		Metadata: ProtoName,
	}
}

const (
	methodUnary        = "/" + Service + "/Unary"
	methodServerStream = "/" + Service + "/ServerStream"
	methodClientStream = "/" + Service + "/ClientStream"
	methodBidi         = "/" + Service + "/Bidi"
)

func (s *Server) unaryHandler(_ any, ctx context.Context, dec func(any) error, ic grpc.UnaryServerInterceptor) (any, error) {
	in := dynamicpb.NewMessage(s.req)
	if err := dec(in); err != nil {
		return nil, err
	}
	handle := func(ctx context.Context, _ any) (any, error) {
		s.received(methodUnary)
		s.waitStall()
		r := s.decode(in)
		s.sleep(r.delay)
		if err := r.failure(); err != nil {
			return nil, err
		}
		return s.newReply(r.text, r.id, 0, 1), nil
	}
	if ic == nil {
		return handle(ctx, in)
	}
	return ic(ctx, in, &grpc.UnaryServerInfo{Server: s, FullMethod: methodUnary}, handle)
}

func (s *Server) serverStream(_ any, ss grpc.ServerStream) error {
	in := dynamicpb.NewMessage(s.req)
	if err := ss.RecvMsg(in); err != nil {
		return err
	}
	s.received(methodServerStream)
	s.waitStall()
	r := s.decode(in)
	n := max(r.count, 1)
	for i := 0; i < n; i++ {
		s.sleep(r.delay)
		if err := ss.SendMsg(s.newReply(r.text, r.id, int64(i), 1)); err != nil {
			return err
		}
		s.replied(methodServerStream)
	}
	return r.failure()
}

func (s *Server) clientStream(_ any, ss grpc.ServerStream) error {
	var last request
	var n int64
	for {
		in := dynamicpb.NewMessage(s.req)
		err := ss.RecvMsg(in)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return err
		}
		s.received(methodClientStream)
		n++
		last = s.decode(in)
		if err := last.failure(); err != nil {
			return err
		}
	}
	s.waitStall()
	s.sleep(last.delay)
	if err := ss.SendMsg(s.newReply(last.text, last.id, 0, n)); err != nil {
		return err
	}
	s.replied(methodClientStream)
	return nil
}

func (s *Server) bidi(_ any, ss grpc.ServerStream) error {
	var n int64
	for {
		in := dynamicpb.NewMessage(s.req)
		err := ss.RecvMsg(in)
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		s.received(methodBidi)
		s.waitStall()
		r := s.decode(in)
		if err := r.failure(); err != nil {
			return err
		}
		s.sleep(r.delay)
		if err := ss.SendMsg(s.newReply(r.text, r.id, n, n+1)); err != nil {
			return err
		}
		s.replied(methodBidi)
		n++
	}
}
