package plan

import (
	"fmt"
	"net"
	"net/url"
	"slices"
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"
)

func (l *loader) decodeTargetBlock(b *hcl.Block) (*Target, hcl.Diagnostics) {
	content, diags := b.Body.Content(targetSchema)
	t := &Target{
		Name:           b.Labels[0],
		Connections:    DefaultConnections,
		Connection:     ConnectionPool,
		Timeout:        DefaultTimeout,
		ConnectTimeout: DefaultConnectTimeout,
		Protocol:       ProtocolHTTP1,
		DeclRange:      b.DefRange,
	}
	attrs := content.Attributes
	raw, attr, d := l.stringAttr(attrs, "url")
	diags = append(diags, d...)
	if attr != nil {
		t.URL, d = l.targetURL(attr, raw)
		diags = append(diags, d...)
	}
	n, attr, d := l.intAttr(attrs, "connections")
	diags = append(diags, d...)
	if attr != nil && (n <= 0 || n > 1<<20) {
		diags = append(diags, attrError(attr, "Invalid connections", fmt.Sprintf("connections must be between 1 and 1048576 (got %d).", n)))
	} else if attr != nil {
		t.Connections = int(n)
	}
	mode, d := l.enumAttr(attrs, "connection", ConnectionPool, ConnectionSession)
	diags = append(diags, d...)
	if mode != "" {
		t.Connection = mode
	}
	t.Timeout, diags = l.positiveDuration(attrs, "timeout", t.Timeout, diags)
	t.ConnectTimeout, diags = l.positiveDuration(attrs, "connect_timeout", t.ConnectTimeout, diags)
	t.ExpectedLatency, diags = l.positiveDuration(attrs, "expected_latency", 0, diags)
	if attr := attrs["headers"]; attr != nil {
		h, d := l.headers(attr, scope{what: fmt.Sprintf("target %q headers", t.Name)})
		t.Headers = h
		diags = append(diags, d...)
	}
	var d2 hcl.Diagnostics
	t.DigestAuth, d2 = l.decodeAuth(attrs, &t.Headers, fmt.Sprintf("target %q", t.Name))
	diags = append(diags, d2...)
	redirects, d := l.decodeRedirects(attrs, fmt.Sprintf("target %q", t.Name))
	diags = append(diags, d...)
	t.Redirects = max(redirects, 0)
	t.SourceAddresses, diags = l.sourceAddresses(attrs, diags)
	diags = append(diags, l.decodeResolve(attrs, t)...)
	tlsBlocks := 0
	for _, tb := range content.Blocks {
		if tb.Type != "tls" {
			continue
		}
		if tlsBlocks++; tlsBlocks > 1 {
			diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Duplicate tls block",
				Detail: fmt.Sprintf("target %q has more than one tls block; merge them into one.", t.Name), Subject: tb.DefRange.Ptr()})
			continue
		}
		diags = append(diags, l.decodeTLSBlock(t, tb)...)
	}
	diags = append(diags, l.decodeProtocol(attrs, t)...)
	diags = append(diags, l.decodeGRPCTarget(t, content.Blocks)...)
	if prev, dup := l.targets[t.Name]; dup {
		diags = append(diags, duplicate("target", t.Name, b.DefRange, prev.DeclRange))
		return nil, diags
	}
	l.targets[t.Name] = t
	return t, diags
}

// targetURL checks that a target's url is absolute http or https. The URL
// itself is left out of messages when it comes from a sensitive variable,
// since URLs may carry credentials.
func (l *loader) targetURL(attr *hcl.Attribute, raw string) (*url.URL, hcl.Diagnostics) {
	u, err := url.Parse(raw)
	switch {
	case err != nil:
		reason := err.Error()
		if ue, ok := err.(*url.Error); ok && l.sensitive(attr) {
			reason = ue.Err.Error()
		}
		return nil, hcl.Diagnostics{attrError(attr, "Invalid target url", fmt.Sprintf("url is not a valid URL: %s. Write an absolute URL such as \"http://127.0.0.1:8080\".", reason))}
	case u.Scheme != "http" && u.Scheme != "https" && u.Scheme != "ws" && u.Scheme != "wss" && u.Scheme != "grpc" && u.Scheme != "grpcs":
		return nil, hcl.Diagnostics{attrError(attr, "Invalid target url", fmt.Sprintf("url must be an absolute http://, https://, ws://, wss://, grpc:// or grpcs:// URL such as \"http://127.0.0.1:8080\" (got %s).", l.shown(attr, raw)))}
	case u.Host == "":
		return nil, hcl.Diagnostics{attrError(attr, "Invalid target url", fmt.Sprintf("url has no host (got %s); write it as \"http://HOST:PORT\".", l.shown(attr, raw)))}
	}
	return u, nil
}

// sourceAddresses reads source_addresses: local IP addresses to bind
// connections to, so one process can hold more connections to one server
// than one address's ephemeral ports allow.
func (l *loader) sourceAddresses(attrs hcl.Attributes, diags hcl.Diagnostics) ([]string, hcl.Diagnostics) {
	v, attr, d := l.typed(attrs, "source_addresses", cty.List(cty.String), scope{what: "source_addresses"})
	diags = append(diags, d...)
	if v == cty.NilVal {
		return nil, diags
	}
	v, _ = v.UnmarkDeep()
	var out []string
	seen := map[string]bool{}
	for _, e := range v.AsValueSlice() {
		ip := net.ParseIP(e.AsString())
		if ip == nil {
			diags = append(diags, attrError(attr, "Invalid source_addresses", fmt.Sprintf("%q is not an IP address; list local addresses such as [\"127.0.0.2\", \"127.0.0.3\"].", e.AsString())))
			continue
		}
		if !seen[ip.String()] {
			seen[ip.String()] = true
			out = append(out, ip.String())
		}
	}
	if len(out) == 0 && !diags.HasErrors() {
		diags = append(diags, attrError(attr, "Invalid source_addresses", "source_addresses is empty: list at least one local address, or leave it out to let the kernel choose."))
	}
	return out, diags
}

// positiveDuration reads a duration that must be > 0, keeping def when unset.
func (l *loader) positiveDuration(attrs hcl.Attributes, name string, def time.Duration, diags hcl.Diagnostics) (time.Duration, hcl.Diagnostics) {
	d, attr, dd := l.durationAttr(attrs, name)
	diags = append(diags, dd...)
	if attr == nil {
		return def, diags
	}
	if d <= 0 {
		return def, append(diags, attrError(attr, "Invalid duration", fmt.Sprintf("%s must be greater than zero, such as \"5s\".", name)))
	}
	return d, diags
}

// enumAttr reads a string that must be one of allowed; "" when unset or wrong.
func (l *loader) enumAttr(attrs hcl.Attributes, name string, allowed ...string) (string, hcl.Diagnostics) {
	s, attr, diags := l.stringAttr(attrs, name)
	if attr == nil {
		return "", diags
	}
	if !slices.Contains(allowed, s) {
		return "", append(diags, attrError(attr, "Invalid "+name, fmt.Sprintf("%s must be one of %s (got %s).", name, quoteList(allowed), l.shown(attr, s))))
	}
	return s, diags
}

func quoteList(list []string) string {
	s := ""
	for i, x := range list {
		switch {
		case i == 0:
		case i == len(list)-1:
			s += " or "
		default:
			s += ", "
		}
		s += fmt.Sprintf("%q", x)
	}
	return s
}
