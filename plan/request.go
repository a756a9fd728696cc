package plan

import (
	"fmt"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/convert"
)

// decodeRequest reads the request attributes endpoints and steps share:
// target, method, path, headers, body and the expect block. owner is the
// block they sit in, used for diagnostics about missing attributes.
func (l *loader) decodeRequest(content *hcl.BodyContent, owner *hcl.Block, sc scope) (Request, hcl.Diagnostics) {
	attrs := content.Attributes
	r := Request{DeclRange: owner.DefRange}
	var diags hcl.Diagnostics

	r.Target, diags = l.requestTarget(attrs, owner, diags)

	sc.what = fmt.Sprintf("%s path", sc.what)
	path, attr, d := l.templateAttr(attrs, "path", sc)
	diags = append(diags, d...)
	r.Path = LiteralTemplate("/")
	if attr != nil {
		if len(path.Parts) == 0 || path.Parts[0].Hole != nil || !strings.HasPrefix(path.Parts[0].Literal, "/") {
			diags = append(diags, attrError(attr, "Invalid path", "path must start with \"/\", such as \"/items/${row.id}\"; the target's url supplies scheme and host."))
		} else {
			r.Path = path
		}
	}

	sc.what = strings.TrimSuffix(sc.what, " path")
	if attr := attrs["headers"]; attr != nil {
		r.Headers, d = l.headers(attr, sc)
		diags = append(diags, d...)
	}
	r.DigestAuth, d = l.decodeAuth(attrs, &r.Headers, sc.what)
	diags = append(diags, d...)
	r.Redirects, d = l.decodeRedirects(attrs, sc.what)
	diags = append(diags, d...)
	diags = append(diags, l.decodeBody(content, sc, &r)...)

	r.Method = "GET"
	if len(r.Body.Parts) > 0 {
		r.Method = "POST"
	}
	method, attr, d := l.stringAttr(attrs, "method")
	diags = append(diags, d...)
	if attr != nil {
		method = strings.ToUpper(method)
		if !isToken(method) {
			diags = append(diags, attrError(attr, "Invalid method", fmt.Sprintf("method must be an HTTP method such as \"GET\" or \"POST\" (got %s).", l.shown(attr, method))))
		} else {
			r.Method = method
		}
	}

	diags = append(diags, l.decodeGRPCRequest(&r, attrs, owner, sc)...)

	for _, b := range content.Blocks {
		if b.Type != "expect" {
			continue
		}
		ec, d := b.Body.Content(expectSchema)
		diags = append(diags, d...)
		statuses := l.statusAttr
		if r.GRPC != nil {
			statuses = l.grpcStatusAttr
		}
		codes, d := statuses(ec.Attributes, "status")
		diags = append(diags, d...)
		r.Expect = append(r.Expect, codes...)
	}
	diags = append(diags, l.decodeChecks(content.Blocks, &r)...)
	if r.GRPC != nil && len(r.Checks) > 0 {
		diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Check on a gRPC call",
			Detail:  "check blocks test HTTP responses; a gRPC call's outcome is its code: list the codes that count as ok in expect { status = [...] }.",
			Subject: r.Checks[0].DeclRange.Ptr()})
	}
	return r, diags
}

// requestTarget resolves the target a request goes to; it may be omitted
// when the plan has exactly one target.
func (l *loader) requestTarget(attrs hcl.Attributes, owner *hcl.Block, diags hcl.Diagnostics) (string, hcl.Diagnostics) {
	name, attr, d := l.stringAttr(attrs, "target")
	diags = append(diags, d...)
	if d.HasErrors() {
		return "", diags
	}
	names := mapKeys(l.targets)
	if attr == nil {
		if len(names) == 1 {
			return names[0], diags
		}
		detail := "The plan declares no target. Add a `target \"api\" { url = \"http://HOST:PORT\" }` block."
		if len(names) > 1 {
			detail = fmt.Sprintf("The plan declares %d targets (%s), so each request must say which one it goes to: add target = %q.", len(names), strings.Join(names, ", "), names[0])
		}
		return "", append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Missing target", Detail: detail, Subject: owner.DefRange.Ptr()})
	}
	if l.targets[name] == nil {
		return "", append(diags, attrError(attr, "Unknown target", fmt.Sprintf("No target %q is declared%s.", name, available("declared", names))))
	}
	return name, diags
}

// headers reads a map of header names to (template) values.
func (l *loader) headers(attr *hcl.Attribute, sc scope) ([]Header, hcl.Diagnostics) {
	v, diags := l.eval(attr.Expr, sc)
	if diags.HasErrors() || v.IsNull() || !v.IsWhollyKnown() {
		return nil, diags
	}
	v, marked := v.UnmarkDeepWithPaths()
	if !v.Type().IsObjectType() && !v.Type().IsMapType() {
		return nil, append(diags, attrError(attr, "Invalid headers", "headers must be a map of header names to strings, such as { \"Content-Type\" = \"application/json\" }."))
	}
	var hs []Header
	for it := v.ElementIterator(); it.Next(); {
		k, val := it.Element()
		name := k.AsString()
		s, err := convert.Convert(val, cty.String)
		if err != nil || s.IsNull() {
			diags = append(diags, attrError(attr, "Invalid header value", fmt.Sprintf("header %q must be a string.", name)))
			continue
		}
		if !isToken(name) {
			diags = append(diags, attrError(attr, "Invalid header name", fmt.Sprintf("%q is not a valid HTTP header name: use letters, digits and - only.", name)))
			continue
		}
		t := l.holes.template(s.AsString())
		if strings.ContainsAny(t.Literal(), "\r\n") {
			diags = append(diags, attrError(attr, "Invalid header value", fmt.Sprintf("header %q holds a line break, which would split the request.", name)))
			continue
		}
		if sensitivePath(marked, name) {
			l.noteSensitive(t)
		}
		hs = append(hs, Header{Name: name, Value: t})
	}
	return hs, diags
}

// isToken reports whether s is an RFC 9110 token (methods, header names).
func isToken(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range []byte(s) {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0) {
			return false
		}
	}
	return true
}
