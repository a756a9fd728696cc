package grpc

import "testing"

func TestCallEnds(t *testing.T) {
	msg := AppendMessage(nil, []byte("hi"), false)
	type field struct{ name, value string }
	grpcType := field{"content-type", "application/grpc"}
	tests := []struct {
		name   string
		http   int
		fields []field
		data   []byte
		want   Code
		msgs   int64
	}{
		{"ok with a message", 200, []field{grpcType, {"grpc-status", "0"}}, msg, OK, 1},
		{"trailers-only failure", 200, []field{grpcType, {"grpc-status", "5"}, {"grpc-message", "no%20such"}}, nil, NotFound, 0},
		{"proto subtype", 200, []field{{"content-type", "application/grpc+proto"}, {"grpc-status", "0"}}, nil, OK, 0},
		{"not gRPC, 503", 503, []field{{"content-type", "text/html"}}, []byte("<html>"), Unavailable, 0},
		{"not gRPC, 200", 200, nil, nil, Unknown, 0},
		{"not gRPC, 404", 404, nil, nil, Unimplemented, 0},
		{"no status", 200, []field{grpcType}, msg, Internal, 1},
		{"malformed status", 200, []field{grpcType, {"grpc-status", "x"}}, nil, Unknown, 0},
		{"ends inside a message", 200, []field{grpcType, {"grpc-status", "0"}}, msg[:4], Internal, 0},
		{"bad flag", 200, []field{grpcType, {"grpc-status", "0"}}, []byte{7, 0, 0, 0, 0}, Internal, 0},
		{"too large", 200, []field{grpcType, {"grpc-status", "0"}}, []byte{0, 0xff, 0, 0, 0}, ResourceExhausted, 0},
	}
	var c Call
	c.KeepMessage = true
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c.Reset()
			c.Status(tt.http)
			for _, f := range tt.fields {
				c.Field(f.name, f.value)
			}
			c.Data(tt.data)
			if got := c.End(); got != tt.want {
				t.Errorf("End() = %v, want %v", got, tt.want)
			}
			if c.Messages() != tt.msgs {
				t.Errorf("Messages() = %d, want %d", c.Messages(), tt.msgs)
			}
		})
	}
	c.Reset()
	c.Status(200)
	c.Field("content-type", "application/grpc")
	c.Field("grpc-status", "5")
	c.Field("grpc-message", "no%20such%20user")
	if c.Message() != "no such user" || !c.KeepMessage {
		t.Fatalf("message %q", c.Message())
	}
	var quiet Call
	quiet.Status(200)
	quiet.Field("content-type", "application/grpc")
	if n := testing.AllocsPerRun(100, func() {
		quiet.Reset()
		quiet.Status(200)
		quiet.Field("content-type", "application/grpc")
		quiet.Data(msg)
		quiet.Field("grpc-status", "0")
		quiet.Field("grpc-message", "x")
		_ = quiet.End()
	}); n != 0 {
		t.Fatalf("a call allocates %v times", n)
	}
}
