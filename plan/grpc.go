package plan

import (
	"time"

	"github.com/hashicorp/hcl/v2"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/tressi/tressi/grpc/schema"
)

// ProtocolGRPC is a gRPC target: HTTP/2 (h2c for http:// and grpc://, h2
// with ALPN for https:// and grpcs://) carrying calls of its proto schema.
const ProtocolGRPC = "grpc"

// GRPCTarget is a gRPC target's proto block: where its schema comes from,
// and the schema itself, read when the plan loads.
type GRPCTarget struct {
	Files       []string // .proto files, named as imports name them
	ImportPaths []string // relative to the plan's directory; default: the plan's directory
	Protoset    string   // a serialized FileDescriptorSet, relative to the plan's directory
	Reflection  bool     // asked of the server's reflection service at load time
	Schema      *schema.Schema
	DeclRange   hcl.Range
}

// GRPCRequest is a gRPC call an endpoint or a step makes.
type GRPCRequest struct {
	// Method is the method's full name, "pkg.Service/Method".
	Method string
	Desc   protoreflect.MethodDescriptor
	// Message is the request message, checked against Desc's input type.
	Message *MessageValue
	// Metadata are the call's custom metadata, names lower case; a -bin
	// value is already base64-encoded.
	Metadata []Header
	// Deadline, when > 0, is sent as grpc-timeout.
	Deadline time.Duration
	// Compression is "gzip" to compress the message, "" for none.
	Compression string
	DeclRange   hcl.Range
}

// MessageValue is a protobuf message written in the plan, checked against
// its descriptor: the fields it sets, in the order written.
type MessageValue struct {
	Desc   protoreflect.MessageDescriptor
	Fields []FieldValue
}

// FieldValue is one field's value: a scalar as text (numbers in decimal,
// enums as their number, bools as true/false, strings and bytes as
// themselves) that may hold per-request holes, a nested message, or, for
// repeated and map fields, the elements (a map's as entry messages).
type FieldValue struct {
	Desc    protoreflect.FieldDescriptor
	Scalar  Template
	Message *MessageValue
	List    []FieldValue
}

// Static reports whether the message has no per-request value.
func (m *MessageValue) Static() bool {
	for i := range m.Fields {
		if !m.Fields[i].static() {
			return false
		}
	}
	return true
}

func (f *FieldValue) static() bool {
	switch {
	case f.Message != nil:
		return f.Message.Static()
	case f.List != nil:
		for i := range f.List {
			if !f.List[i].static() {
				return false
			}
		}
		return true
	}
	return f.Scalar.Static()
}
