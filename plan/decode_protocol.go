package plan

import (
	"fmt"

	"github.com/hashicorp/hcl/v2"
)

// decodeProtocol reads a target's protocol and max_streams, which must fit
// its URL's scheme: HTTP/2 over TLS needs https, prior-knowledge h2c needs
// http.
func (l *loader) decodeProtocol(attrs hcl.Attributes, t *Target) hcl.Diagnostics {
	proto, diags := l.enumAttr(attrs, "protocol", ProtocolHTTP1, ProtocolH2, ProtocolH2C, ProtocolAuto, ProtocolGRPC)
	if proto != "" {
		t.Protocol = proto
	}
	if t.URL != nil && (t.URL.Scheme == "grpc" || t.URL.Scheme == "grpcs") {
		if attr := attrs["protocol"]; attr != nil && proto != "" && proto != ProtocolGRPC {
			diags = append(diags, attrError(attr, "Invalid protocol", fmt.Sprintf("a %s:// url is a gRPC target; leave protocol out or set it to \"grpc\" (got %q).", t.URL.Scheme, proto)))
		}
		t.Protocol = ProtocolGRPC
	}
	if attr := attrs["protocol"]; attr != nil && t.URL != nil {
		switch {
		case t.Protocol == ProtocolH2 && t.URL.Scheme != "https":
			diags = append(diags, attrError(attr, "Invalid protocol", `protocol "h2" is HTTP/2 over TLS and needs an https:// url; for cleartext HTTP/2 with prior knowledge use "h2c".`))
		case t.Protocol == ProtocolH2C && t.URL.Scheme != "http":
			diags = append(diags, attrError(attr, "Invalid protocol", `protocol "h2c" is cleartext HTTP/2 and needs an http:// url; over https use "h2" (or "auto" to let ALPN choose).`))
		}
	}
	n, attr, d := l.intAttr(attrs, "max_streams")
	diags = append(diags, d...)
	switch {
	case attr == nil && t.Protocol != ProtocolHTTP1:
		t.MaxStreams = DefaultMaxStreams
	case attr == nil:
	case t.Protocol == ProtocolHTTP1:
		diags = append(diags, attrError(attr, "Invalid max_streams", `max_streams applies to HTTP/2: set protocol = "h2", "h2c" or "auto", or remove max_streams.`))
	case n < 1 || n > MaxStreamsLimit:
		diags = append(diags, attrError(attr, "Invalid max_streams", fmt.Sprintf("max_streams must be between 1 and %d (got %d).", MaxStreamsLimit, n)))
	default:
		t.MaxStreams = int(n)
	}
	return diags
}
