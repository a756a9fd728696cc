package plan

import (
	"fmt"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/ext/typeexpr"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/convert"
)

// sensitiveMark marks values derived from sensitive variables; cty carries it
// through every operation, so diagnostics can tell what they must not print.
const sensitiveMark = "sensitive"

// envVarPrefix names environment variables that set plan variables.
const envVarPrefix = "TRESSI_VAR_"

// decodeVariables decodes the variable blocks, resolves their values with
// Terraform's precedence (default < TRESSI_VAR_name < --var-file and --var in
// command-line order) and builds the var.* object every expression sees.
func (l *loader) decodeVariables(bs []*hcl.Block) []*Variable {
	var vars []*Variable
	first := map[string]hcl.Range{}
	for _, b := range bs {
		v, diags := decodeVariableBlock(b)
		l.diags = append(l.diags, diags...)
		if v == nil {
			continue
		}
		if prev, dup := first[v.Name]; dup {
			l.diags = append(l.diags, duplicate("variable", v.Name, b.DefRange, prev))
			continue
		}
		first[v.Name] = b.DefRange
		l.variables[v.Name] = v
		vars = append(vars, v)
	}
	l.assignVariables()
	values := map[string]cty.Value{}
	for _, v := range vars {
		if v.Value == cty.NilVal {
			l.diags = append(l.diags, &hcl.Diagnostic{
				Severity: hcl.DiagError,
				Summary:  "No value for required variable",
				Detail: fmt.Sprintf("Variable %q has no default and was not set. Set it with --var '%s=...', a --var-file, or the environment variable %s%s, or give it a default.",
					v.Name, v.Name, envVarPrefix, v.Name),
				Subject: v.DeclRange.Ptr(),
			})
			values[v.Name] = cty.DynamicVal
			continue
		}
		values[v.Name] = v.mark(v.Value)
	}
	l.varObject = cty.ObjectVal(values)
	return vars
}

func decodeVariableBlock(b *hcl.Block) (*Variable, hcl.Diagnostics) {
	content, diags := b.Body.Content(variableSchema)
	v := &Variable{Name: b.Labels[0], Type: cty.DynamicPseudoType, DeclRange: b.DefRange}
	if !hclsyntax.ValidIdentifier(v.Name) {
		diags = append(diags, &hcl.Diagnostic{
			Severity: hcl.DiagError,
			Summary:  "Invalid variable name",
			Detail:   "A variable name must start with a letter or underscore and hold only letters, digits, underscores and dashes.",
			Subject:  b.LabelRanges[0].Ptr(),
		})
	}
	if attr := content.Attributes["type"]; attr != nil {
		ty, tyDiags := typeexpr.TypeConstraint(attr.Expr)
		diags = append(diags, tyDiags...)
		if !tyDiags.HasErrors() {
			v.Type = ty
		}
	}
	if attr := content.Attributes["sensitive"]; attr != nil {
		val, valDiags := attr.Expr.Value(nil)
		diags = append(diags, valDiags...)
		if b, err := convert.Convert(val, cty.Bool); err != nil || b.IsNull() {
			diags = append(diags, attrError(attr, "Invalid sensitive", "sensitive must be true or false."))
		} else {
			v.Sensitive = b.True()
		}
	}
	if attr := content.Attributes["description"]; attr != nil {
		val, valDiags := attr.Expr.Value(nil)
		diags = append(diags, valDiags...)
		if _, err := convert.Convert(val, cty.String); err != nil {
			diags = append(diags, attrError(attr, "Invalid description", "description must be a string."))
		}
	}
	if attr := content.Attributes["default"]; attr != nil {
		val, valDiags := attr.Expr.Value(nil)
		diags = append(diags, valDiags...)
		v.Value = cty.DynamicVal // stays unknown when the default is wrong, silencing "no value"
		if !valDiags.HasErrors() {
			conv, err := convert.Convert(val, v.Type)
			if err != nil {
				diags = append(diags, attrError(attr, "Invalid default value",
					fmt.Sprintf("The default of variable %q does not match its type %s: %s.", v.Name, v.Type.FriendlyName(), err)))
			} else {
				v.Default = conv
				v.Value = conv
			}
		}
	}
	return v, diags
}

// mark applies the sensitive mark when the variable is sensitive, for the
// value expressions see. Variable.Value itself stays unmarked so callers can
// read it; they check Sensitive before showing it.
func (v *Variable) mark(val cty.Value) cty.Value {
	if v.Sensitive {
		return val.Mark(sensitiveMark)
	}
	return val
}

// assignVariables applies the environment, then --var-file and --var in order.
func (l *loader) assignVariables() {
	for _, kv := range l.opts.Env {
		key, raw, ok := strings.Cut(kv, "=")
		name, isVar := strings.CutPrefix(key, envVarPrefix)
		if !ok || !isVar {
			continue
		}
		if v := l.variables[name]; v != nil {
			l.setFromText(v, raw)
		}
	}
	for _, arg := range l.opts.Vars {
		if arg.File {
			l.setFromFile(arg.Value)
			continue
		}
		name, raw, ok := strings.Cut(arg.Value, "=")
		if !ok || name == "" {
			l.diags = append(l.diags, &hcl.Diagnostic{
				Severity: hcl.DiagError,
				Summary:  "Invalid --var option",
				Detail:   fmt.Sprintf("The --var option %q is not of the form name=value; write for example --var 'base_url=http://localhost:8080'.", arg.Value),
			})
			continue
		}
		v := l.variables[name]
		if v == nil {
			l.diags = append(l.diags, &hcl.Diagnostic{
				Severity: hcl.DiagError,
				Summary:  "Value for undeclared variable",
				Detail:   fmt.Sprintf("--var sets %q, but the plan declares no such variable%s. Declare it with a `variable %q {}` block, or fix the name.", name, available("declared", mapKeys(l.variables)), name),
			})
			continue
		}
		l.setFromText(v, raw)
	}
}

// setFromText assigns a value given as text (--var or the environment). As in
// Terraform, a string-typed (or untyped) variable takes the text as it is;
// other types parse it as an HCL expression in a pseudo-file named after the
// variable, so a mistake still gets a range.
func (l *loader) setFromText(v *Variable, raw string) {
	if v.Sensitive {
		l.secrets.addText(raw)
	}
	if v.Type == cty.String || v.Type == cty.DynamicPseudoType {
		v.Value = cty.StringVal(raw)
		return
	}
	filename := fmt.Sprintf("<value for var.%s>", v.Name)
	src := []byte(raw)
	if d := checkNesting(src, filename, false); d != nil {
		l.diags = append(l.diags, d) // without the source: its snippet would print the whole value
		return
	}
	e, diags := hclsyntax.ParseExpression(src, filename, hcl.InitialPos)
	shown := src
	if v.Sensitive { // a diagnostic's snippet shows this "file"
		shown = []byte(Redacted)
	}
	l.parser.AddFile(filename, &hcl.File{Bytes: shown})
	if diags.HasErrors() {
		l.diags = append(l.diags, notALiteral(v, raw, diags)...)
		return
	}
	val, valDiags := e.Value(nil)
	if valDiags.HasErrors() {
		// A bare word such as `fast` parses as a reference; saying that
		// "variables are not allowed" would not tell the user the value is
		// simply not a number.
		l.diags = append(l.diags, notALiteral(v, raw, valDiags)...)
		return
	}
	l.assign(v, val, e.Range())
}

// notALiteral explains text given for a typed variable that is not an HCL
// literal of its type: the text taken as a string fails to convert, so the
// diagnostic says what was required (as assign does), over the whole text.
// Text that would convert as a string (never for number, bool or
// collections) keeps HCL's own diagnostics.
func notALiteral(v *Variable, raw string, diags hcl.Diagnostics) hcl.Diagnostics {
	_, err := convert.Convert(cty.StringVal(raw), v.Type)
	if err == nil {
		return diags
	}
	return hcl.Diagnostics{invalidValue(v, err, textRange(v, raw))}
}

// textRange covers all of raw in the pseudo-file of v's text value.
func textRange(v *Variable, raw string) hcl.Range {
	end := hcl.Pos{Line: 1, Column: 1, Byte: 0}
	for _, r := range raw {
		end.Byte += len(string(r))
		end.Column++
		if r == '\n' {
			end.Line++
			end.Column = 1
		}
	}
	return hcl.Range{Filename: fmt.Sprintf("<value for var.%s>", v.Name), Start: hcl.InitialPos, End: end}
}

// invalidValue is the one wording of a value that does not fit v's type:
// "Invalid value for variable rate: a number is required", and an example.
func invalidValue(v *Variable, err error, rng hcl.Range) *hcl.Diagnostic {
	return &hcl.Diagnostic{
		Severity: hcl.DiagError,
		Summary:  "Invalid value for variable",
		Detail: fmt.Sprintf("Invalid value for variable %s: %s. Variable %q is of type %s; give it as an HCL literal, for example %s.",
			v.Name, err, v.Name, v.Type.FriendlyName(), exampleValue(v)),
		Subject: rng.Ptr(),
	}
}

// exampleValue shows a --var of v's type.
func exampleValue(v *Variable) string {
	switch {
	case v.Type == cty.Number:
		return "--var " + v.Name + "=50"
	case v.Type == cty.Bool:
		return "--var " + v.Name + "=true"
	case v.Type.IsListType() || v.Type.IsSetType() || v.Type.IsTupleType():
		return "--var '" + v.Name + "=[...]'"
	default:
		return "--var '" + v.Name + "={...}'"
	}
}

// assign converts val to v's type, reporting a mismatch at rng.
func (l *loader) assign(v *Variable, val cty.Value, rng hcl.Range) {
	conv, err := convert.Convert(val, v.Type)
	if err != nil {
		l.diags = append(l.diags, invalidValue(v, err, rng))
		return
	}
	v.Value = conv
}

// setFromFile applies a --var-file: HCL (or JSON) attributes name = value.
func (l *loader) setFromFile(name string) {
	src, err := l.src.ReadFile(name)
	if err != nil {
		l.diags = append(l.diags, &hcl.Diagnostic{
			Severity: hcl.DiagError,
			Summary:  "Cannot read variables file",
			Detail:   fmt.Sprintf("--var-file %s: %v. Check the path; it is relative to the working directory.", name, err),
		})
		return
	}
	f, diags := l.parse(src, name)
	l.diags = append(l.diags, diags...)
	if diags.HasErrors() {
		return
	}
	attrs, diags := f.Body.JustAttributes()
	l.diags = append(l.diags, diags...)
	for _, attr := range sortedAttributes(attrs) {
		v := l.variables[attr.Name]
		if v == nil {
			l.diags = append(l.diags, &hcl.Diagnostic{
				Severity: hcl.DiagWarning,
				Summary:  "Value for undeclared variable",
				Detail:   fmt.Sprintf("The plan declares no variable %q, so this value is ignored%s.", attr.Name, available("declared", mapKeys(l.variables))),
				Subject:  attr.NameRange.Ptr(),
			})
			continue
		}
		val, valDiags := attr.Expr.Value(nil)
		l.diags = append(l.diags, valDiags...)
		if v.Sensitive {
			l.secrets.add(val)
		}
		if !valDiags.HasErrors() {
			l.assign(v, val, attr.Expr.Range())
		}
	}
}

// sortedAttributes orders attributes by position, so diagnostics come out in
// reading order.
func sortedAttributes(attrs hcl.Attributes) []*hcl.Attribute {
	out := make([]*hcl.Attribute, 0, len(attrs))
	for _, a := range attrs {
		out = append(out, a)
	}
	for i := 1; i < len(out); i++ {
		for j := i; j > 0 && out[j].Range.Start.Byte < out[j-1].Range.Start.Byte; j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	return out
}

// duplicate reports a second declaration of a name.
func duplicate(kind, name string, second, first hcl.Range) *hcl.Diagnostic {
	return &hcl.Diagnostic{
		Severity: hcl.DiagError,
		Summary:  fmt.Sprintf("Duplicate %s %q", kind, name),
		Detail:   fmt.Sprintf("%s %q was already declared at %s. Rename one of them.", kind, name, first),
		Subject:  second.Ptr(),
	}
}
