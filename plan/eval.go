package plan

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/function"
)

// scope says what an expression may refer to. The zero scope allows var.*
// and functions only: the settings of targets, load and thresholds are fixed
// for the whole run.
type scope struct {
	// what names the setting for messages, e.g. "endpoint \"home\" path".
	what string
	// perRequest allows seq, uuid() and random_int(): the value becomes a
	// Template with holes.
	perRequest bool
	// data feeds row.*; nil when row is unavailable, with noRow saying why,
	// or with noRow empty when the data block itself failed to load (its own
	// diagnostic already says why).
	data  *Data
	noRow string
	// captured holds the names earlier steps captured; nil outside scenarios.
	captured map[string]bool
	// later maps names captured by this or later steps to the step, so a use
	// before the capture gets a precise message.
	later map[string]string
	// connectTarget is a WebSocket session's connect's target, for the
	// steps after it ("" before it, and outside WebSocket scenarios).
	connectTarget string
	// websocket allows `mark` (a WebSocket send's payload); each allows
	// each.value and each.index (steps inside a for_each).
	websocket bool
	each      bool
	// streams allows a streaming gRPC method in a call (a scenario's
	// top-level step opening it; endpoints call unary methods only).
	streams bool
}

// eval evaluates expr in sc. References are checked first so each mistake
// gets a message that says what is available, rather than HCL's generic
// "unsupported attribute".
func (l *loader) eval(expr hcl.Expression, sc scope) (cty.Value, hcl.Diagnostics) {
	diags, silent := l.checkReferences(expr, sc)
	if diags.HasErrors() || silent {
		return cty.DynamicVal, diags
	}
	v, evalDiags := expr.Value(l.evalContext(sc))
	for _, d := range evalDiags {
		// The text writer would print the variables' values, which here are
		// sentinels of per-request values: noise at best.
		d.EvalContext = nil
	}
	diags = append(diags, evalDiags...)
	if diags.HasErrors() {
		return cty.DynamicVal, diags
	}
	if !sc.perRequest && hasHole(v) {
		diags = append(diags, &hcl.Diagnostic{
			Severity: hcl.DiagError,
			Summary:  "Per-request value not allowed here",
			Detail:   fmt.Sprintf("%s is fixed for the whole run, so it cannot use uuid() or random_int(); those are only allowed in request paths, headers and bodies.", sc.what),
			Subject:  expr.Range().Ptr(),
		})
		return cty.DynamicVal, diags
	}
	return v, diags
}

func (l *loader) evalContext(sc scope) *hcl.EvalContext {
	vars := map[string]cty.Value{"var": l.varObject}
	if sc.perRequest {
		vars["seq"] = cty.StringVal(l.holes.sentinel(Hole{Kind: HoleSeq}))
	}
	if sc.perRequest && sc.websocket {
		vars["mark"] = cty.StringVal(l.holes.sentinel(Hole{Kind: HoleMark}))
	}
	if sc.perRequest && sc.each {
		vars["each"] = cty.ObjectVal(map[string]cty.Value{
			"value": cty.StringVal(l.holes.sentinel(Hole{Kind: HoleEachValue})),
			"index": cty.StringVal(l.holes.sentinel(Hole{Kind: HoleEachIndex})),
		})
	}
	if sc.data != nil {
		cols := map[string]cty.Value{}
		for _, c := range sc.data.Columns {
			cols[c] = cty.StringVal(l.holes.sentinel(Hole{Kind: HoleRow, Name: c}))
		}
		vars["row"] = cty.ObjectVal(cols)
	}
	if sc.captured != nil {
		caps := map[string]cty.Value{}
		for c := range sc.captured {
			caps[c] = cty.StringVal(l.holes.sentinel(Hole{Kind: HoleCaptured, Name: c}))
		}
		vars["captured"] = cty.ObjectVal(caps)
	}
	funcs := l.funcs
	if sc.perRequest && sc.data != nil {
		funcs = make(map[string]function.Function, len(l.funcs))
		for k, f := range l.funcs {
			funcs[k] = f
		}
		funcs["base64encode"] = l.base64Func(l.base64RowFunc(sc.data))
	}
	return &hcl.EvalContext{Variables: vars, Functions: funcs}
}

// checkReferences reports every reference expr makes that sc cannot satisfy.
// silent says the expression cannot be evaluated because of a mistake
// reported elsewhere.
func (l *loader) checkReferences(expr hcl.Expression, sc scope) (diags hcl.Diagnostics, silent bool) {
	for _, t := range expr.Variables() {
		name, hasName := traversalName(t)
		bad := func(summary, detail string) {
			diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: summary, Detail: detail, Subject: t.SourceRange().Ptr()})
		}
		switch t.RootName() {
		case "var":
			if hasName && l.variables[name] == nil {
				bad("Reference to undeclared variable",
					fmt.Sprintf("No variable %q is declared. Declare it with a `variable %q { ... }` block%s.", name, name, available("declared", mapKeys(l.variables))))
			}
		case "seq":
			if !sc.perRequest {
				bad("seq not allowed here", fmt.Sprintf("seq is the slot number of a request, so %s cannot use it; use it in request paths, headers and bodies.", sc.what))
			}
		case "row":
			switch {
			case !sc.perRequest:
				bad("row not allowed here", fmt.Sprintf("row.* differs per request, so %s cannot use it; use it in request paths, headers and bodies.", sc.what))
			case sc.data == nil && sc.noRow == "":
				silent = true
			case sc.data == nil:
				bad("No data for row", sc.noRow)
			case hasName && !slices.Contains(sc.data.Columns, name):
				bad("Unknown data column", fmt.Sprintf("data %q has no column %q; its columns are: %s.", sc.data.Name, name, strings.Join(sc.data.Columns, ", ")))
			}
		case "mark":
			if !sc.perRequest || !sc.websocket {
				bad("mark not allowed here", fmt.Sprintf("mark is a token unique to one WebSocket frame, so %s cannot use it; use it in the send of a WebSocket step.", sc.what))
			}
		case "each":
			switch {
			case !sc.perRequest || !sc.each:
				bad("each not allowed here", fmt.Sprintf("each.value and each.index are the element of a for_each, so %s cannot use them; use them in the steps inside a for_each step.", sc.what))
			case hasName && name != "value" && name != "index":
				bad("Unknown each attribute", fmt.Sprintf("each has value and index, not %q.", name))
			}
		case "captured":
			switch {
			case sc.captured == nil:
				bad("captured not allowed here", fmt.Sprintf("captured.* holds values captured by earlier steps of a scenario, so %s cannot use it; move the requests into a scenario with `capture` on the step that receives the value.", sc.what))
			case hasName && !sc.captured[name]:
				if step, ok := sc.later[name]; ok {
					bad("Capture used before it is captured", fmt.Sprintf("captured.%s is captured by step %q, which runs after this one (or is this one). Use it in a later step, or capture it earlier.", name, step))
				} else {
					bad("Unknown capture", fmt.Sprintf("No step of this scenario captures %q. Add `capture = { %s = json(\"...\") }` to an earlier step%s.", name, name, available("captured so far", mapKeys(sc.captured))))
				}
			}
		}
	}
	return diags, silent
}

// traversalName returns the attribute a traversal like row.x or row["x"]
// names after its root.
func traversalName(t hcl.Traversal) (string, bool) {
	if len(t) < 2 {
		return "", false
	}
	switch step := t[1].(type) {
	case hcl.TraverseAttr:
		return step.Name, true
	case hcl.TraverseIndex:
		if step.Key.Type() == cty.String && step.Key.IsKnown() && !step.Key.IsNull() {
			return step.Key.AsString(), true
		}
	}
	return "", false
}

// available lists names for a diagnostic's detail, if there are any.
func available(label string, names []string) string {
	if len(names) == 0 {
		return ""
	}
	return "; " + label + ": " + strings.Join(names, ", ")
}

func mapKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
