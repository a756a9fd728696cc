package plan

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/function"
)

// A capture's json("a.b"), header("X") and regex("re") evaluate to a string
// naming the kind and its argument between private-use characters, so the
// capture map can be an ordinary HCL expression in both syntaxes.
const (
	captureOpen = "\uE002"
	captureSep  = "\uE003"
)

var captureKinds = map[string]CaptureKind{
	"json":   CaptureJSON,
	"header": CaptureHeader,
	"regex":  CaptureRegex,
	"cookie": CaptureCookie,
}

var captureFunctions = func() map[string]function.Function {
	fns := map[string]function.Function{}
	for name := range captureKinds {
		fns[name] = function.New(&function.Spec{
			Params: []function.Parameter{{Name: "expr", Type: cty.String}},
			Type:   function.StaticReturnType(cty.String),
			Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
				return cty.StringVal(captureOpen + name + captureSep + args[0].AsString()), nil
			},
		})
	}
	return fns
}()

// decodeCaptures reads `capture = { name = json("a.b") | header("X") | regex("re") }`.
func (l *loader) decodeCaptures(attr *hcl.Attribute) ([]Capture, hcl.Diagnostics) {
	const hint = "capture must be a map such as { token = json(\"data.token\"), session = header(\"X-Session\"), id = regex(\"id=(\\\\w+)\") }."
	ctx := &hcl.EvalContext{Variables: map[string]cty.Value{"var": l.varObject}, Functions: captureFunctions}
	v, diags := attr.Expr.Value(ctx)
	if diags.HasErrors() {
		return nil, diags
	}
	if !v.IsWhollyKnown() {
		return nil, diags
	}
	v, _ = v.UnmarkDeep()
	if v.IsNull() || !(v.Type().IsObjectType() || v.Type().IsMapType()) {
		return nil, append(diags, attrError(attr, "Invalid capture", hint))
	}
	var caps []Capture
	for it := v.ElementIterator(); it.Next(); {
		k, val := it.Element()
		name := k.AsString()
		if !hclsyntax.ValidIdentifier(name) {
			diags = append(diags, attrError(attr, "Invalid capture name", fmt.Sprintf("%q cannot be referred to as captured.%s; use letters, digits and underscores.", name, name)))
			continue
		}
		c, err := parseCapture(name, val)
		if err != "" {
			diags = append(diags, attrError(attr, "Invalid capture", fmt.Sprintf("capture %q: %s %s", name, err, hint)))
			continue
		}
		c.DeclRange = attr.Range
		caps = append(caps, c)
	}
	return caps, diags
}

// parseCapture decodes one capture function's result.
func parseCapture(name string, v cty.Value) (Capture, string) {
	if v.IsNull() || v.Type() != cty.String {
		return Capture{}, "the value must be json(...), header(...), regex(...) or cookie(...)."
	}
	s, ok := strings.CutPrefix(v.AsString(), captureOpen)
	kindName, expr, sep := strings.Cut(s, captureSep)
	if !ok || !sep {
		return Capture{}, "the value must be json(...), header(...), regex(...) or cookie(...)."
	}
	c := Capture{Name: name, Kind: captureKinds[kindName], Expr: expr}
	switch c.Kind {
	case CaptureJSON:
		if expr == "" {
			return c, "json() needs a path such as \"data.token\" or \"items[0].id\"."
		}
	case CaptureHeader:
		if !isToken(expr) {
			return c, fmt.Sprintf("header(%q) must name an HTTP header.", expr)
		}
	case CaptureCookie:
		if !isToken(expr) {
			return c, fmt.Sprintf("cookie(%q) must name a cookie (an HTTP token, such as \"sid\").", expr)
		}
	case CaptureRegex:
		re, err := regexp.Compile(expr)
		if err != nil {
			return c, fmt.Sprintf("regex(%q) is not a valid regular expression: %v.", expr, err)
		}
		if re.NumSubexp() > 1 {
			return c, fmt.Sprintf("regex(%q) has %d groups; the first group (or the whole match) is captured, so use at most one, making others non-capturing with (?:...).", expr, re.NumSubexp())
		}
	}
	return c, ""
}
