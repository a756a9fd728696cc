package plan

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/url"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/convert"
)

// A request's body is one of three: `body` (a string template, or a file's
// exact bytes through file()), `form` (application/x-www-form-urlencoded)
// or a `multipart` block (multipart/form-data, RFC 7578). The last two are
// rendered here into an ordinary body template, so the compiler and the
// engines see one fixed shape: literal bytes with holes, filled per request
// without parsing.

var multipartBlock = hcl.BlockHeaderSchema{Type: "multipart"}

var multipartSchema = &hcl.BodySchema{
	Blocks: []hcl.BlockHeaderSchema{
		{Type: "field", LabelNames: []string{"name"}},
		{Type: "file", LabelNames: []string{"name"}},
	},
}

var fieldSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{{Name: "value", Required: true}},
}

var filePartSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{
		{Name: "path", Required: true},
		{Name: "filename"},
		{Name: "content_type"},
	},
}

// Content types the body kinds send, unless the request sets its own.
const (
	formContentType    = "application/x-www-form-urlencoded"
	defaultFileType    = "application/octet-stream"
	multipartMediaType = "multipart/form-data"
)

// decodeBody reads body, form or multipart into r.Body, adding the
// Content-Type header form and multipart imply.
func (l *loader) decodeBody(content *hcl.BodyContent, sc scope, r *Request) hcl.Diagnostics {
	attrs := content.Attributes
	var diags hcl.Diagnostics
	var multipart []*hcl.Block
	for _, b := range content.Blocks {
		if b.Type == "multipart" {
			multipart = append(multipart, b)
		}
	}
	var kinds []string
	var first hcl.Range
	for _, k := range []string{"body", "form"} {
		if a := attrs[k]; a != nil {
			if kinds == nil {
				first = a.NameRange
			}
			kinds = append(kinds, k)
		}
	}
	for _, b := range multipart {
		if kinds == nil {
			first = b.DefRange
		}
		kinds = append(kinds, "multipart")
	}
	if len(kinds) > 1 {
		return append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Conflicting bodies",
			Detail:  fmt.Sprintf("a request has one body, but this one sets %s: keep one of body, form and a single multipart block.", strings.Join(kinds, " and ")),
			Subject: first.Ptr()})
	}
	var d hcl.Diagnostics
	switch {
	case attrs["form"] != nil:
		r.Body, d = l.formBody(attrs["form"], sc)
		diags = append(diags, d...)
		if !hasHeader(r.Headers, "Content-Type") {
			r.Headers = append(r.Headers, Header{Name: "Content-Type", Value: LiteralTemplate(formContentType)})
		}
	case len(multipart) == 1:
		if h := findHeader(r.Headers, "Content-Type"); h != nil {
			return append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Conflicting Content-Type",
				Detail:  "a multipart body sets Content-Type itself (multipart/form-data with its boundary); remove the Content-Type header.",
				Subject: multipart[0].DefRange.Ptr()})
		}
		var boundary string
		r.Body, boundary, d = l.multipartBody(multipart[0], sc)
		diags = append(diags, d...)
		r.Headers = append(r.Headers, Header{Name: "Content-Type",
			Value: LiteralTemplate(multipartMediaType + "; boundary=" + boundary)})
	default:
		r.Body, _, d = l.templateAttr(attrs, "body", sc)
		diags = append(diags, d...)
	}
	return diags
}

// formBody renders `form = { name = value }` as name=value pairs joined by
// &, in name order (HCL maps have no other), each side escaped as
// url.QueryEscape does; per-request values are filled escaped the same way.
func (l *loader) formBody(attr *hcl.Attribute, sc scope) (Template, hcl.Diagnostics) {
	v, diags := l.eval(attr.Expr, sc)
	if diags.HasErrors() || v.IsNull() || !v.IsWhollyKnown() {
		return Template{}, diags
	}
	v, marked := v.UnmarkDeepWithPaths()
	if !v.Type().IsObjectType() && !v.Type().IsMapType() {
		return Template{}, append(diags, attrError(attr, "Invalid form", "form must be a map of field names to strings, such as { user = row.user, remember = \"1\" }."))
	}
	var b strings.Builder
	sensitive := false
	for it := v.ElementIterator(); it.Next(); {
		k, val := it.Element()
		name := k.AsString()
		s, err := convert.Convert(val, cty.String)
		if err != nil || s.IsNull() {
			diags = append(diags, attrError(attr, "Invalid form", fmt.Sprintf("form field %q must be a string.", name)))
			continue
		}
		if strings.Contains(name, holeOpen) {
			diags = append(diags, attrError(attr, "Invalid form", "form field names are fixed for the run; put per-request values in the values."))
			continue
		}
		enc, msg := l.holes.urlEncoded(s.AsString())
		if msg != errNoEncoding {
			diags = append(diags, attrError(attr, "Invalid form", fmt.Sprintf("form field %q: %s (form values are URL-encoded already).", name, msg)))
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('&')
		}
		b.WriteString(url.QueryEscape(name))
		b.WriteByte('=')
		b.WriteString(enc)
		sensitive = sensitive || sensitivePath(marked, name)
	}
	t := l.holes.template(b.String())
	if sensitive {
		l.noteSensitive(t)
	}
	return t, diags
}

// multipartPart is one part of a multipart body, before the boundary is known.
type multipartPart struct {
	head  string   // the part's header lines, each ending in CRLF
	value Template // its content
}

// multipartBody renders a multipart block: its field and file parts in the
// order written, each framed by a boundary derived from the parts' fixed
// bytes, so the same plan always sends the same body (and hash).
func (l *loader) multipartBody(b *hcl.Block, sc scope) (Template, string, hcl.Diagnostics) {
	content, diags := b.Body.Content(multipartSchema)
	var parts []multipartPart
	for _, pb := range content.Blocks {
		name := pb.Labels[0] // repeated names are legal: a list of values
		disposition := "Content-Disposition: form-data; name=\"" + quotePartName(name) + "\""
		if pb.Type == "field" {
			fc, d := pb.Body.Content(fieldSchema)
			diags = append(diags, d...)
			psc := sc
			psc.what = fmt.Sprintf("%s multipart field %q", sc.what, name)
			t, _, d := l.templateAttr(fc.Attributes, "value", psc)
			diags = append(diags, d...)
			parts = append(parts, multipartPart{head: disposition + "\r\n", value: t})
			continue
		}
		part, d := l.filePart(pb, disposition)
		diags = append(diags, d...)
		parts = append(parts, part)
	}
	if len(parts) == 0 && !diags.HasErrors() {
		diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Empty multipart",
			Detail:  "a multipart block needs at least one part: field \"NAME\" { value = \"...\" } or file \"NAME\" { path = \"photo.jpg\" }.",
			Subject: b.DefRange.Ptr()})
	}
	boundary := multipartBoundary(parts)
	var body Template
	for _, p := range parts {
		body.Parts = appendLiteral(body.Parts, "--"+boundary+"\r\n"+p.head+"\r\n")
		for _, pp := range p.value.Parts {
			if pp.Hole == nil {
				body.Parts = appendLiteral(body.Parts, pp.Literal)
			} else {
				body.Parts = append(body.Parts, pp)
			}
		}
		body.Parts = appendLiteral(body.Parts, "\r\n")
	}
	body.Parts = appendLiteral(body.Parts, "--"+boundary+"--\r\n")
	return body, boundary, diags
}

// filePart reads a multipart file part: the file's exact bytes, its
// filename (default: the path's base name) and content type.
func (l *loader) filePart(pb *hcl.Block, disposition string) (multipartPart, hcl.Diagnostics) {
	fc, diags := pb.Body.Content(filePartSchema)
	path, pathAttr, d := l.stringAttr(fc.Attributes, "path")
	diags = append(diags, d...)
	filename, attr, d := l.stringAttr(fc.Attributes, "filename")
	diags = append(diags, d...)
	if attr == nil {
		filename = filepath.Base(path)
	}
	ctype, attr, d := l.stringAttr(fc.Attributes, "content_type")
	diags = append(diags, d...)
	if attr == nil || ctype == "" {
		ctype = defaultFileType
	} else if strings.ContainsAny(ctype, "\r\n") {
		diags = append(diags, attrError(attr, "Invalid content_type", "content_type holds a line break, which would split the part's header."))
	}
	var data []byte
	if pathAttr != nil && !d.HasErrors() {
		var err error
		if data, err = l.readPlanFile(path, "a multipart file"); err != nil {
			diags = append(diags, attrError(pathAttr, "Cannot read multipart file", err.Error()+"."))
		}
	}
	head := disposition + "; filename=\"" + quotePartName(filename) + "\"\r\nContent-Type: " + ctype + "\r\n"
	return multipartPart{head: head, value: LiteralTemplate(string(data))}, diags
}

// quotePartName escapes a name or filename for a quoted Content-Disposition
// parameter as browsers do (WHATWG's multipart/form-data encoding): " as
// %22, CR as %0D, LF as %0A.
func quotePartName(s string) string {
	return strings.NewReplacer(`"`, "%22", "\r", "%0D", "\n", "%0A").Replace(s)
}

// multipartBoundary derives the boundary from the parts' fixed bytes (their
// headers and literal content), so it is the same for every run of the
// plan, and picks another if it ever occurs inside them.
func multipartBoundary(parts []multipartPart) string {
	h := sha256.New()
	for _, p := range parts {
		h.Write([]byte(p.head))
		for _, pp := range p.value.Parts {
			h.Write([]byte(pp.Literal))
		}
	}
	sum := h.Sum(nil)
	for n := 0; ; n++ {
		boundary := "tressi-" + hex.EncodeToString(sum[:12])
		if n > 0 {
			boundary += "-" + strconv.Itoa(n)
		}
		clash := false
		for _, p := range parts {
			for _, pp := range p.value.Parts {
				clash = clash || strings.Contains(pp.Literal, boundary)
			}
		}
		if !clash {
			return boundary
		}
	}
}

// appendLiteral adds literal text, merging it into a preceding literal.
func appendLiteral(parts []Part, s string) []Part {
	if n := len(parts); n > 0 && parts[n-1].Hole == nil {
		parts[n-1].Literal += s
		return parts
	}
	return append(parts, Part{Literal: s})
}

// contentUsesRoot reports whether a request's attributes, or the fields
// of its multipart block, refer to the given root variable (row).
func contentUsesRoot(c *hcl.BodyContent, root string) bool {
	if usesRoot(c.Attributes, root) {
		return true
	}
	for _, b := range c.Blocks {
		if b.Type != "multipart" {
			continue
		}
		mc, _, _ := b.Body.PartialContent(multipartSchema)
		for _, fb := range mc.Blocks {
			if fc, _, _ := fb.Body.PartialContent(fieldSchema); fb.Type == "field" && usesRoot(fc.Attributes, root) {
				return true
			}
		}
	}
	return false
}

func findHeader(hs []Header, name string) *Header {
	for i := range hs {
		if strings.EqualFold(hs[i].Name, name) {
			return &hs[i]
		}
	}
	return nil
}

func hasHeader(hs []Header, name string) bool { return findHeader(hs, name) != nil }
