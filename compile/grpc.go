package compile

import (
	"bytes"

	"github.com/hashicorp/hcl/v2"
	"github.com/klauspost/compress/gzip"

	"github.com/tressi/tressi/grpc"
	"github.com/tressi/tressi/plan"
)

// TargetGRPC marks a gRPC target (its Protocol is h2c or h2, which is how
// its calls travel) and embeds its schema: a .tplan carries it, so
// verifying or replaying needs neither the .proto files nor the server.
type TargetGRPC struct {
	// Protoset is the schema as a serialized FileDescriptorSet.
	Protoset []byte
}

// GRPCCall is what a request to a gRPC target carries beyond HTTP/2.
type GRPCCall struct {
	// Method is "pkg.Service/Method"; the request's URI is "/" + Method.
	Method string
	// Message, when the message varies per request, is its template: the
	// body is then its encoding, length-prefixed, rendered per request.
	// nil when the message is fixed: Body already holds it, framed.
	Message *MessageTemplate `json:",omitempty"`
}

// The request headers of every gRPC call (gRPC's PROTOCOL-HTTP2.md),
// before the deadline, the compression and the call's metadata.
var grpcHeaders = []HeaderSplice{
	{Name: "content-type", Value: Splice{Segments: [][]byte{[]byte("application/grpc")}}},
	{Name: "te", Value: Splice{Segments: [][]byte{[]byte("trailers")}}},
}

// resolveGRPC makes a gRPC target's calls ride HTTP/2: h2c over http://
// (and grpc://), h2 with ALPN over https:// (and grpcs://).
func resolveGRPC(t *plan.Target, out *Target, p *plan.Plan) {
	if t.Protocol != plan.ProtocolGRPC {
		return
	}
	out.Protocol = ProtocolH2C
	if out.Scheme == "https" {
		out.Protocol = ProtocolH2
	}
	out.GRPC = &TargetGRPC{Protoset: p.Descriptors[t.Name]}
}

// buildGRPC fills req, an HTTP/2 POST to "/" + the method, with the
// call's headers and message.
func buildGRPC(req *Request, r *plan.Request, scope requestScope, nextID *uint32) hcl.Diagnostics {
	g := r.GRPC
	if g == nil {
		return nil
	}
	req.Method = "POST"
	req.GRPC = &GRPCCall{Method: g.Method}
	if len(req.Expect) == 0 {
		req.Expect = []int{int(grpc.OK)}
	}
	headers := append([]HeaderSplice(nil), grpcHeaders...)
	if g.Deadline > 0 {
		headers = append(headers, HeaderSplice{Name: "grpc-timeout", Value: Splice{Segments: [][]byte{grpc.AppendTimeout(nil, g.Deadline)}}})
	}
	if g.Compression != "" {
		headers = append(headers, HeaderSplice{Name: "grpc-encoding", Value: Splice{Segments: [][]byte{[]byte(g.Compression)}}})
	}
	var diags hcl.Diagnostics
	for _, h := range g.Metadata {
		v, d := buildSplice("", h.Value, scope, nextID, r.DeclRange)
		diags = append(diags, d...)
		headers = append(headers, HeaderSplice{Name: h.Name, Value: v})
	}
	req.Headers = append(headers, req.Headers...)
	msg, d := buildMessage(g.Message, scope, nextID, r.DeclRange)
	diags = append(diags, d...)
	if !msg.Static() {
		if g.Compression != "" {
			diags = append(diags, errorAt(r.DeclRange, "Compressed message with per-request values",
				"compression = \"gzip\" compresses the message once, when the plan compiles; this call's message has per-request values. Remove compression, or the per-request values.")...)
		}
		req.GRPC.Message = msg
		req.Body = Splice{Segments: [][]byte{nil}}
		return diags
	}
	body := msg.Append(nil, &Values{})
	compressed := false
	if g.Compression == "gzip" {
		var zb bytes.Buffer
		zw := gzip.NewWriter(&zb)
		zw.Write(body)
		zw.Close()
		body, compressed = zb.Bytes(), true
	}
	req.Body = Splice{Segments: [][]byte{grpc.AppendMessage(nil, body, compressed)}}
	return diags
}
