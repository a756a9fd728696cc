package plan

import (
	"fmt"
	"math"
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/convert"
)

// Typed readers for optional attributes. Each returns a nil *hcl.Attribute
// (boolAttr: set = false) when the attribute is absent, null or invalid, so
// the caller applies its default: absent and null with no diagnostic, a
// value of the wrong type or out of range with one diagnostic on the
// attribute's expression.

// typed evaluates an attribute and converts it to ty.
func (l *loader) typed(attrs hcl.Attributes, name string, ty cty.Type, sc scope) (cty.Value, *hcl.Attribute, hcl.Diagnostics) {
	attr := attrs[name]
	if attr == nil {
		return cty.NilVal, nil, nil
	}
	v, diags := l.eval(attr.Expr, sc)
	if diags.HasErrors() {
		return cty.NilVal, attr, diags
	}
	if v.IsNull() || !v.IsWhollyKnown() {
		// Unknown values come from mistakes already reported (a variable
		// without a value); saying more about them would only be noise.
		return cty.NilVal, attr, diags
	}
	cv, err := convert.Convert(v, ty)
	if err != nil {
		return cty.NilVal, attr, append(diags, attrError(attr, "Invalid "+name, fmt.Sprintf("%s must be %s: %s.", name, typeName(ty), err)))
	}
	return cv, attr, diags
}

func typeName(ty cty.Type) string {
	switch {
	case ty == cty.String:
		return "a string"
	case ty == cty.Number:
		return "a number"
	case ty == cty.Bool:
		return "true or false"
	case ty.IsListType():
		return "a list of " + ty.ElementType().FriendlyName() + "s"
	case ty.IsMapType():
		return "a map of " + ty.ElementType().FriendlyName() + "s"
	}
	return ty.FriendlyName()
}

// attrError is a diagnostic on an attribute's value.
func attrError(attr *hcl.Attribute, summary, detail string) *hcl.Diagnostic {
	return &hcl.Diagnostic{Severity: hcl.DiagError, Summary: summary, Detail: detail, Subject: attr.Expr.Range().Ptr()}
}

// stringAttr reads a static string.
func (l *loader) stringAttr(attrs hcl.Attributes, name string) (string, *hcl.Attribute, hcl.Diagnostics) {
	v, attr, diags := l.typed(attrs, name, cty.String, scope{what: name})
	if v == cty.NilVal {
		return "", nil, diags
	}
	v, _ = v.Unmark()
	return v.AsString(), attr, diags
}

// boolAttr reads true or false.
func (l *loader) boolAttr(attrs hcl.Attributes, name string) (bool, bool, hcl.Diagnostics) {
	v, _, diags := l.typed(attrs, name, cty.Bool, scope{what: name})
	if v == cty.NilVal {
		return false, false, diags
	}
	v, _ = v.Unmark()
	return v.True(), true, diags
}

// numberAttr reads a finite number.
func (l *loader) numberAttr(attrs hcl.Attributes, name string) (float64, *hcl.Attribute, hcl.Diagnostics) {
	v, attr, diags := l.typed(attrs, name, cty.Number, scope{what: name})
	if v == cty.NilVal {
		return 0, nil, diags
	}
	v, _ = v.Unmark()
	f, _ := v.AsBigFloat().Float64()
	if math.IsInf(f, 0) {
		return 0, nil, append(diags, attrError(attr, "Invalid "+name, name+" is too large."))
	}
	return f, attr, diags
}

// intAttr reads a whole number.
func (l *loader) intAttr(attrs hcl.Attributes, name string) (int64, *hcl.Attribute, hcl.Diagnostics) {
	v, attr, diags := l.typed(attrs, name, cty.Number, scope{what: name})
	if v == cty.NilVal {
		return 0, nil, diags
	}
	v, marks := v.Unmark()
	i, err := wholeNumber(v)
	if err != nil {
		return 0, nil, append(diags, attrError(attr, "Invalid "+name, fmt.Sprintf("%s %v (got %s).", name, err, display(v.WithMarks(marks)))))
	}
	return i, attr, diags
}

// durationAttr reads a Go-style duration string such as "250ms" or "1m30s".
func (l *loader) durationAttr(attrs hcl.Attributes, name string) (time.Duration, *hcl.Attribute, hcl.Diagnostics) {
	v, attr, diags := l.typed(attrs, name, cty.String, scope{what: name})
	if v == cty.NilVal {
		return 0, nil, diags
	}
	s, marks := v.Unmark()
	d, err := time.ParseDuration(s.AsString())
	if err != nil {
		return 0, nil, append(diags, attrError(attr, "Invalid duration",
			fmt.Sprintf("%s must be a duration such as \"250ms\", \"5s\" or \"1m30s\" (got %s).", name, display(s.WithMarks(marks)))))
	}
	if d < 0 {
		return 0, nil, append(diags, attrError(attr, "Invalid duration", fmt.Sprintf("%s must not be negative (got %s).", name, display(s.WithMarks(marks)))))
	}
	return d, attr, diags
}

// statusAttr reads a list of HTTP status codes, each in 100..599.
func (l *loader) statusAttr(attrs hcl.Attributes, name string) ([]int, hcl.Diagnostics) {
	v, attr, diags := l.typed(attrs, name, cty.List(cty.Number), scope{what: name})
	if v == cty.NilVal {
		return nil, diags
	}
	v, _ = v.UnmarkDeep()
	var codes []int
	for _, e := range v.AsValueSlice() {
		n, err := wholeNumber(e)
		if err != nil || n < 100 || n > 599 {
			diags = append(diags, attrError(attr, "Invalid status code",
				fmt.Sprintf("%s must list HTTP status codes from 100 to 599 (got %s).", name, display(e))))
			continue
		}
		codes = append(codes, int(n))
	}
	return codes, diags
}

// templateAttr reads a string that may hold per-request values.
func (l *loader) templateAttr(attrs hcl.Attributes, name string, sc scope) (Template, *hcl.Attribute, hcl.Diagnostics) {
	v, attr, diags := l.typed(attrs, name, cty.String, sc)
	if v == cty.NilVal {
		return Template{}, nil, diags
	}
	v, marks := v.Unmark()
	t := l.holes.template(v.AsString())
	if marks.Has(sensitiveMark) {
		l.noteSensitive(t)
	}
	return t, attr, diags
}

// display renders a value for a diagnostic, hiding anything derived from a
// sensitive variable.
func display(v cty.Value) string {
	if v.ContainsMarked() {
		return "(sensitive value)"
	}
	if v.IsNull() {
		return "null"
	}
	if !v.IsKnown() {
		return "(unknown)"
	}
	switch v.Type() {
	case cty.String:
		return fmt.Sprintf("%q", v.AsString())
	case cty.Number:
		return v.AsBigFloat().Text('g', -1)
	case cty.Bool:
		return fmt.Sprint(v.True())
	}
	return v.Type().FriendlyName()
}

// sensitive reports whether an attribute refers to a sensitive variable, so
// its value must stay out of diagnostics.
func (l *loader) sensitive(attr *hcl.Attribute) bool {
	for _, t := range attr.Expr.Variables() {
		if name, ok := traversalName(t); ok && t.RootName() == "var" {
			if v := l.variables[name]; v != nil && v.Sensitive {
				return true
			}
		}
	}
	return false
}

// shown quotes an attribute's string value for a diagnostic, unless it
// derives from a sensitive variable.
func (l *loader) shown(attr *hcl.Attribute, s string) string {
	if l.sensitive(attr) {
		return "(sensitive value)"
	}
	return fmt.Sprintf("%q", s)
}
