package compile

import (
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/tressi/tressi/plan"
)

// requestScope is what a request's holes may refer to: the columns of the
// entry's data block and the capture slots of its scenario.
type requestScope struct {
	columns  []string
	captures map[string]int
}

// buildRequest compiles one endpoint or scenario step into a request-table
// row. nextID numbers holes across the whole table, so no two holes of the
// schedule (and so of one request) derive the same random value.
func buildRequest(name string, r *plan.Request, target int, t *Target, base string,
	targetHeaders []plan.Header, scope requestScope, nextID *uint32) (Request, hcl.Diagnostics) {
	var diags hcl.Diagnostics
	req := Request{Name: name, Target: target, Method: r.Method, Expect: append([]int(nil), r.Expect...)}
	if req.Method == "" {
		req.Method = "GET"
		if len(r.Body.Parts) > 0 {
			req.Method = "POST"
		}
	}
	var d hcl.Diagnostics
	req.URI, d = buildSplice(uriPrefix(base, r.Path), r.Path, scope, nextID, r.DeclRange)
	diags = append(diags, d...)
	// A text value in the request-target is percent-encoded where it would
	// make the request line invalid (a space, '#', non-ASCII, ...).
	for i := range req.URI.Holes {
		if h := &req.URI.Holes[i]; h.Kind == plan.HoleRow || h.Kind == plan.HoleCaptured {
			h.URIEscape = true
		}
	}
	for _, h := range mergeHeaders(targetHeaders, r.Headers) {
		v, d := buildSplice("", h.Value, scope, nextID, r.DeclRange)
		diags = append(diags, d...)
		req.Headers = append(req.Headers, HeaderSplice{Name: h.Name, Value: v})
	}
	req.Body, d = buildSplice("", r.Body, scope, nextID, r.DeclRange)
	diags = append(diags, d...)
	diags = append(diags, buildGRPC(&req, r, scope, nextID)...)
	for _, c := range r.Checks {
		req.Checks = append(req.Checks, Check{Name: c.Name, Subject: c.Subject, Path: c.Path, Op: c.Op,
			Value: c.Value, Exists: c.Exists, MinSize: c.MinSize, MaxSize: c.MaxSize})
	}
	req.Static = req.URI.Static() && req.Body.Static() && (req.GRPC == nil || req.GRPC.Message == nil)
	for i := range req.Headers {
		req.Static = req.Static && req.Headers[i].Value.Static()
	}
	return req, diags
}

// uriPrefix is the literal text before the request path: the target's base
// path, and a slash when the path does not start with one (or is empty).
func uriPrefix(base string, path plan.Template) string {
	if len(path.Parts) == 0 {
		return base + "/"
	}
	if first := path.Parts[0]; first.Hole == nil && first.Literal != "" &&
		!strings.HasPrefix(first.Literal, "/") && !strings.HasPrefix(first.Literal, "?") {
		return base + "/"
	}
	return base
}

// mergeHeaders puts the target's headers first and the request's after; a
// request header replaces a target header of the same name (HTTP header
// names are case-insensitive). Nothing else is added: fasthttp writes Host
// (the URL's, unless a Host header names another virtual host),
// Content-Length and its defaults itself.
func mergeHeaders(target, request []plan.Header) []plan.Header {
	out := make([]plan.Header, 0, len(target)+len(request))
	for _, th := range target {
		overridden := false
		for _, rh := range request {
			if strings.EqualFold(th.Name, rh.Name) {
				overridden = true
				break
			}
		}
		if !overridden {
			out = append(out, th)
		}
	}
	return append(out, request...)
}

// buildSplice converts a template into literal segments and holes, merging
// adjacent literals so len(Segments) == len(Holes)+1.
func buildSplice(prefix string, t plan.Template, scope requestScope, nextID *uint32, rng hcl.Range) (Splice, hcl.Diagnostics) {
	var diags hcl.Diagnostics
	var sp Splice
	cur := []byte(prefix)
	for _, p := range t.Parts {
		if p.Hole == nil {
			cur = append(cur, p.Literal...)
			continue
		}
		h := Hole{Kind: p.Hole.Kind, Min: p.Hole.Min, Max: p.Hole.Max, JSONEscape: p.Hole.JSONEscape,
			QueryEscape: p.Hole.URLEncode, ID: *nextID}
		*nextID++
		switch p.Hole.Kind {
		case plan.HoleRow:
			h.Index = indexOf(scope.columns, p.Hole.Name)
			if h.Index < 0 {
				diags = append(diags, errorAt(rng, "Unknown data column",
					"row."+p.Hole.Name+" names no column of this request's data block.")...)
			}
		case plan.HoleCaptured:
			i, ok := scope.captures[p.Hole.Name]
			if !ok {
				diags = append(diags, errorAt(rng, "Unknown captured value",
					"captured."+p.Hole.Name+" is not captured by any step of this scenario.")...)
				i = -1
			}
			h.Index = i
		}
		sp.Segments = append(sp.Segments, cur)
		sp.Holes = append(sp.Holes, h)
		cur = nil
	}
	sp.Segments = append(sp.Segments, cur)
	return sp, diags
}

func indexOf(list []string, s string) int {
	for i, v := range list {
		if v == s {
			return i
		}
	}
	return -1
}
