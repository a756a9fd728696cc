package plan

import (
	"encoding/base64"
	"fmt"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/convert"
)

// grpcAttributes are the request attributes only gRPC calls take.
var grpcAttributes = []string{"rpc", "message", "metadata", "deadline", "compression"}

// httpOnlyAttributes are those a gRPC call has no use for: its path is
// the method, its body the message, its method POST.
var httpOnlyAttributes = []string{"method", "path", "body", "form"}

// decodeGRPCRequest reads a request to target t: a gRPC call when t is a
// gRPC target (rpc, message, metadata, deadline, compression), and a
// located error for gRPC attributes on any other target.
func (l *loader) decodeGRPCRequest(r *Request, attrs hcl.Attributes, owner *hcl.Block, sc scope) hcl.Diagnostics {
	t := l.targets[r.Target]
	if t == nil {
		return nil
	}
	var diags hcl.Diagnostics
	if t.Protocol != ProtocolGRPC {
		for _, name := range grpcAttributes {
			if attr := attrs[name]; attr != nil {
				diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "gRPC attribute on an HTTP target",
					Detail:  fmt.Sprintf("%s is for gRPC calls, and target %q speaks %q; set its protocol = \"grpc\" with a proto block, or remove %s.", name, t.Name, t.Protocol, name),
					Subject: attr.NameRange.Ptr()})
			}
		}
		return diags
	}
	for _, name := range httpOnlyAttributes {
		if attr := attrs[name]; attr != nil {
			diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "HTTP attribute on a gRPC call",
				Detail:  fmt.Sprintf("target %q is a gRPC target: a call names its method with rpc = \"pkg.Service/Method\" and its request with message = { ... }; remove %s.", t.Name, name),
				Subject: attr.NameRange.Ptr()})
		}
	}
	g := &GRPCRequest{DeclRange: owner.DefRange}
	r.GRPC = g
	r.Method = "POST"
	name, attr, d := l.stringAttr(attrs, "rpc")
	diags = append(diags, d...)
	if attr == nil {
		if !d.HasErrors() {
			diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Missing rpc",
				Detail:  fmt.Sprintf("a call to gRPC target %q names its method: rpc = \"pkg.Service/Method\".", t.Name),
				Subject: owner.DefRange.Ptr()})
		}
		return diags
	}
	if t.GRPC == nil || t.GRPC.Schema == nil {
		return diags // the target's own diagnostic says why
	}
	md, err := t.GRPC.Schema.Method(name)
	if err != nil {
		return append(diags, attrError(attr, "Unknown gRPC method", err.Error()+"."))
	}
	if streaming := md.IsStreamingClient() || md.IsStreamingServer(); streaming && !sc.streams {
		return append(diags, attrError(attr, "Streaming method in an endpoint",
			fmt.Sprintf("%s streams (client %v, server %v); an endpoint calls a unary method. Open the stream in a scenario step instead, and send and await its messages in steps naming it with stream = \"STEP\".",
				name, md.IsStreamingClient(), md.IsStreamingServer())))
	}
	if md.IsStreamingClient() && attrs["message"] != nil {
		diags = append(diags, attrError(attrs["message"], "Message on a stream's open step",
			fmt.Sprintf("%s takes a stream of messages: the step that opens it sends none. Send each in a later step, such as step \"say\" { stream = %q, message = { ... } }.", name, owner.Labels[0])))
	}
	g.Desc = md
	g.Method = string(md.Parent().FullName()) + "/" + string(md.Name())
	r.Path = LiteralTemplate("/" + g.Method)

	g.Message = &MessageValue{Desc: md.Input()}
	if attr := attrs["message"]; attr != nil {
		v, d := l.eval(attr.Expr, sc)
		diags = append(diags, d...)
		if !d.HasErrors() && !v.IsNull() && v.IsWhollyKnown() {
			mv, d := l.messageValue(attr, v, md.Input(), "message", sc)
			diags = append(diags, d...)
			if mv != nil {
				g.Message = mv
			}
		}
	}
	if attr := attrs["metadata"]; attr != nil {
		g.Metadata, d = l.metadata(attr, sc)
		diags = append(diags, d...)
	}
	deadline, attr, d := l.durationAttr(attrs, "deadline")
	diags = append(diags, d...)
	if attr != nil && deadline <= 0 {
		diags = append(diags, attrError(attr, "Invalid deadline", "deadline must be greater than zero, such as \"1s\"; it is sent as grpc-timeout."))
	} else if attr != nil {
		g.Deadline = deadline
	}
	comp, d := l.enumAttr(attrs, "compression", "none", "gzip")
	diags = append(diags, d...)
	if comp == "gzip" {
		g.Compression = comp
	}
	return diags
}

// reservedMetadata are the header names gRPC and HTTP/2 use themselves.
var reservedMetadata = []string{"content-type", "te", "user-agent", "grpc-timeout", "grpc-encoding",
	"grpc-accept-encoding", "grpc-message", "grpc-status", "grpc-message-type", "host", "connection"}

// metadata reads a call's custom metadata: names are lower-cased; a name
// ending in -bin carries binary, base64-encoded here, so its value must be
// the same for every call.
func (l *loader) metadata(attr *hcl.Attribute, sc scope) ([]Header, hcl.Diagnostics) {
	v, diags := l.eval(attr.Expr, sc)
	if diags.HasErrors() || v.IsNull() || !v.IsWhollyKnown() {
		return nil, diags
	}
	v, marked := v.UnmarkDeepWithPaths()
	if !v.Type().IsObjectType() && !v.Type().IsMapType() {
		return nil, append(diags, attrError(attr, "Invalid metadata", "metadata must be a map of names to strings, such as { \"x-tenant\" = \"a\" }."))
	}
	var out []Header
	for it := v.ElementIterator(); it.Next(); {
		k, val := it.Element()
		name := strings.ToLower(k.AsString())
		s, err := convert.Convert(val, cty.String)
		switch {
		case err != nil || s.IsNull():
			diags = append(diags, attrError(attr, "Invalid metadata value", fmt.Sprintf("metadata %q must be a string.", name)))
			continue
		case !isToken(name) || strings.HasPrefix(name, "grpc-") || strings.HasPrefix(name, ":"):
			diags = append(diags, attrError(attr, "Invalid metadata name", fmt.Sprintf("%q is not a metadata name: use lower-case letters, digits, '-', '_' and '.', not starting with \"grpc-\".", name)))
			continue
		}
		for _, r := range reservedMetadata {
			if name == r {
				diags = append(diags, attrError(attr, "Reserved metadata name", fmt.Sprintf("%q is set by gRPC itself (deadline and compression have attributes of their own).", name)))
			}
		}
		t := l.holes.template(s.AsString())
		if strings.HasSuffix(name, "-bin") {
			if !t.Static() {
				diags = append(diags, attrError(attr, "Per-request binary metadata", fmt.Sprintf("%q is binary metadata, base64-encoded when the plan loads, so its value cannot hold per-request values.", name)))
				continue
			}
			t = LiteralTemplate(base64.RawStdEncoding.EncodeToString([]byte(t.Literal())))
		} else if strings.ContainsAny(t.Literal(), "\r\n") {
			diags = append(diags, attrError(attr, "Invalid metadata value", fmt.Sprintf("metadata %q holds a line break.", name)))
			continue
		}
		if sensitivePath(marked, k.AsString()) {
			l.noteSensitive(t)
		}
		out = append(out, Header{Name: name, Value: t})
	}
	return out, diags
}

// grpcStepCaptures refuses json() captures on a gRPC call: its answer is
// protobuf, not JSON. Its metadata and trailers (header()) and regex()
// on the raw message may be captured.
func grpcStepCaptures(st *Step) hcl.Diagnostics {
	if st.GRPC == nil {
		return nil
	}
	var diags hcl.Diagnostics
	for _, c := range st.Captures {
		if c.Kind == CaptureJSON {
			diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "JSON capture on a gRPC call",
				Detail:  fmt.Sprintf("step %q calls %s, whose answer is a protobuf message, not JSON: capture %q with header(\"NAME\") (response metadata and trailers) or regex(\"RE\") instead.", st.Name, st.GRPC.Method, c.Name),
				Subject: c.DeclRange.Ptr()})
		}
	}
	return diags
}

// grpcOnWebSocketStep refuses gRPC attributes on a WebSocket step, which
// would otherwise be ignored.
func grpcOnWebSocketStep(attrs hcl.Attributes, st *Step) hcl.Diagnostics {
	var diags hcl.Diagnostics
	for _, name := range append(grpcAttributes, "stream", "half_close", "cancel", "finish") {
		if attr := attrs[name]; attr != nil {
			diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "gRPC attribute on a WebSocket step",
				Detail:  fmt.Sprintf("step %q is a WebSocket %s step; %s belongs to a gRPC call, in a step of its own to a gRPC target.", st.Name, st.Kind, name),
				Subject: attr.NameRange.Ptr()})
		}
	}
	return diags
}
