package plan

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"
)

// kindAttrs are the attributes that make a step a WebSocket step; a step
// has at most one of them.
var kindAttrs = []struct {
	name string
	kind StepKind
}{
	{"connect", StepConnect},
	{"send", StepSend},
	{"hold", StepHold},
	{"close", StepClose},
	{"for_each", StepForEach},
}

// httpAttrs belong to HTTP steps only.
var httpAttrs = []string{"method", "path", "body", "form"}

// wsOnly lists, per WebSocket attribute, the step kinds it belongs to.
var wsOnly = map[string][]StepKind{
	"subprotocols":   {StepConnect},
	"binary":         {StepSend},
	"wait":           {StepSend},
	"skip_if":        {StepSend},
	"exit_if_failed": {StepSend},
	"max":            {StepForEach},
}

// stepKind decides what a step is from the attributes it sets.
func stepKind(c *hcl.BodyContent, b *hcl.Block, websocket bool) (StepKind, hcl.Diagnostics) {
	kind := StepHTTP
	var first *hcl.Attribute
	var diags hcl.Diagnostics
	for _, ka := range kindAttrs {
		attr := c.Attributes[ka.name]
		if attr == nil {
			continue
		}
		if first != nil {
			diags = append(diags, attrError(attr, "Conflicting step kinds",
				fmt.Sprintf("step %q sets both %s and %s; a step does one thing: split it into two steps.", b.Labels[0], first.Name, attr.Name)))
			continue
		}
		kind, first = ka.kind, attr
	}
	if kind == StepHTTP && websocket {
		if hasAny(c.Attributes, httpAttrs...) == nil && c.Attributes["think"] != nil {
			kind = StepThink
		}
	}
	if kind != StepHTTP {
		if attr := hasAny(c.Attributes, httpAttrs...); attr != nil {
			diags = append(diags, attrError(attr, "HTTP attribute on a WebSocket step",
				fmt.Sprintf("%s belongs to HTTP steps; step %q is a %s step. WebSocket steps send with `send`, and the connect step's path is `connect`.", attr.Name, b.Labels[0], kind)))
		}
	}
	for name, kinds := range wsOnly {
		if attr := c.Attributes[name]; attr != nil && !containsKind(kinds, kind) {
			diags = append(diags, attrError(attr, "Unsupported argument here",
				fmt.Sprintf("%s belongs to %s steps; step %q is a %s step.", name, kinds[0], b.Labels[0], kind)))
		}
	}
	for _, blk := range c.Blocks {
		switch {
		case blk.Type == "await" && kind != StepSend:
			diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Unsupported block here",
				Detail: fmt.Sprintf("await belongs to send steps; step %q is a %s step.", b.Labels[0], kind), Subject: blk.DefRange.Ptr()})
		case blk.Type == "multipart" && kind != StepHTTP:
			diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "HTTP block on a WebSocket step",
				Detail: fmt.Sprintf("multipart belongs to HTTP steps; step %q is a %s step, which sends with `send`.", b.Labels[0], kind), Subject: blk.DefRange.Ptr()})
		case blk.Type == "check" && kind != StepHTTP:
			diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "HTTP block on a WebSocket step",
				Detail: fmt.Sprintf("check belongs to HTTP steps; step %q is a %s step: test a WebSocket answer with await { json = {...} } or regex.", b.Labels[0], kind), Subject: blk.DefRange.Ptr()})
		case blk.Type == "step" && kind != StepForEach:
			diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Unsupported block here",
				Detail: fmt.Sprintf("nested steps belong to for_each steps; step %q is a %s step.", b.Labels[0], kind), Subject: blk.DefRange.Ptr()})
		}
	}
	return kind, diags
}

func hasAny(attrs hcl.Attributes, names ...string) *hcl.Attribute {
	for _, n := range names {
		if a := attrs[n]; a != nil {
			return a
		}
	}
	return nil
}

func containsKind(ks []StepKind, k StepKind) bool {
	for _, x := range ks {
		if x == k {
			return true
		}
	}
	return false
}

// decodeWebSocket reads the kind-specific attributes of a WebSocket step into st.
func (l *loader) decodeWebSocket(c *hcl.BodyContent, b *hcl.Block, st *Step, sc scope) hcl.Diagnostics {
	attrs := c.Attributes
	w := &WebSocket{Wait: true}
	st.WebSocket = w
	var diags hcl.Diagnostics
	var d hcl.Diagnostics
	sc.websocket = true
	switch st.Kind {
	case StepConnect:
		st.Request = Request{DeclRange: b.DefRange, Method: "GET"}
		st.Target, diags = l.requestTarget(attrs, b, diags)
		psc := sc
		psc.websocket = false // a mark belongs to frames, not URLs
		psc.what += " connect"
		path, attr, d := l.templateAttr(attrs, "connect", psc)
		diags = append(diags, d...)
		st.Path = LiteralTemplate("/")
		if attr != nil {
			if len(path.Parts) == 0 || path.Parts[0].Hole != nil || !strings.HasPrefix(path.Parts[0].Literal, "/") {
				diags = append(diags, attrError(attr, "Invalid connect", "connect is the WebSocket path and query, starting with \"/\", such as \"/v0/channels?apikey=${var.apikey}\"; the target's url supplies scheme and host."))
			} else {
				st.Path = path
			}
		}
		if attr := attrs["headers"]; attr != nil {
			st.Headers, d = l.headers(attr, psc)
			diags = append(diags, d...)
		}
		if v, attr, d := l.typed(attrs, "subprotocols", cty.List(cty.String), scope{what: "subprotocols"}); v != cty.NilVal {
			v, _ = v.UnmarkDeep()
			for _, e := range v.AsValueSlice() {
				if !isToken(e.AsString()) {
					diags = append(diags, attrError(attr, "Invalid subprotocols", fmt.Sprintf("%q is not a valid subprotocol name (an HTTP token).", e.AsString())))
					continue
				}
				w.Subprotocols = append(w.Subprotocols, e.AsString())
			}
			diags = append(diags, d...)
		} else {
			diags = append(diags, d...)
		}
	case StepSend:
		st.Request = Request{DeclRange: b.DefRange}
		st.Target, diags = l.sessionTarget(attrs, b, sc, diags)
		ssc := sc
		ssc.what += " send"
		st.Body, _, d = l.templateAttr(attrs, "send", ssc)
		diags = append(diags, d...)
		for _, p := range st.Body.Parts {
			if p.Hole != nil && p.Hole.Kind == HoleMark {
				w.Marked = true
			}
		}
		w.Binary, _, d = l.boolAttr(attrs, "binary")
		diags = append(diags, d...)
		w.ExitIfFailed, _, d = l.boolAttr(attrs, "exit_if_failed")
		diags = append(diags, d...)
		skip, attr, d := l.stringAttr(attrs, "skip_if")
		diags = append(diags, d...)
		if attr != nil {
			if _, err := regexp.Compile(skip); err != nil || skip == "" {
				why := "it is empty"
				if err != nil {
					why = err.Error()
				}
				diags = append(diags, attrError(attr, "Invalid skip_if", fmt.Sprintf("skip_if is a regular expression tried on each frame before it is sent, such as \"\\\"topic\\\":\\\"chn\" (%s).", why)))
			} else {
				w.SkipIf = skip
			}
		}
		if wait, set, d := l.boolAttr(attrs, "wait"); set {
			w.Wait = wait
			diags = append(diags, d...)
		} else {
			diags = append(diags, d...)
		}
		for _, blk := range c.Blocks {
			if blk.Type != "await" {
				continue
			}
			if w.Await != nil {
				diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Duplicate await block",
					Detail: "A send step has at most one await block.", Subject: blk.DefRange.Ptr()})
				continue
			}
			w.Await, d = l.decodeAwait(blk, sc)
			diags = append(diags, d...)
		}
		for _, blk := range c.Blocks {
			if blk.Type != "expect" {
				continue
			}
			ec, d := blk.Body.Content(expectSchema)
			diags = append(diags, d...)
			codes, d := l.statusAttr(ec.Attributes, "status")
			diags = append(diags, d...)
			st.Expect = append(st.Expect, codes...)
		}
		if len(st.Captures) > 0 && w.Await == nil {
			diags = append(diags, attrError(attrs["capture"], "Capture without await",
				fmt.Sprintf("step %q captures from the frame that answers it, so it needs an await block, such as await { json = { \"ctrl.id\" = \"...\" } }.", b.Labels[0])))
		}
		for _, cp := range st.Captures {
			if cp.Kind == CaptureHeader {
				diags = append(diags, attrError(attrs["capture"], "Invalid capture",
					fmt.Sprintf("capture %q: frames have no headers; capture with json(...) or regex(...).", cp.Name)))
			}
		}
	case StepHold:
		st.Request = Request{DeclRange: b.DefRange}
		st.Target, diags = l.sessionTarget(attrs, b, sc, diags)
		w.Hold, _, d = l.durationAttr(attrs, "hold")
		diags = append(diags, d...)
	case StepClose:
		st.Request = Request{DeclRange: b.DefRange}
		st.Target, diags = l.sessionTarget(attrs, b, sc, diags)
		code, attr, d := l.intAttr(attrs, "close")
		diags = append(diags, d...)
		if attr != nil && code != 0 && !(code >= 1000 && code <= 1003 || code >= 1007 && code <= 1014 || code >= 3000 && code <= 4999) {
			diags = append(diags, attrError(attr, "Invalid close", fmt.Sprintf("close must be a WebSocket close code a client may send, such as 1000 (normal) or 1001 (going away), or 0 for none (got %d).", code)))
		} else {
			w.CloseCode = int(code)
		}
	case StepThink:
		st.Request = Request{DeclRange: b.DefRange}
		st.Target, diags = l.sessionTarget(attrs, b, sc, diags)
	case StepForEach:
		st.Request = Request{DeclRange: b.DefRange}
		st.Target, diags = l.sessionTarget(attrs, b, sc, diags)
		attr := attrs["for_each"]
		trav, td := hcl.AbsTraversalForExpr(attr.Expr)
		name, ok := traversalName(trav)
		if td.HasErrors() || trav.RootName() != "captured" || !ok || len(trav) != 2 {
			diags = append(diags, attrError(attr, "Invalid for_each", "for_each takes a captured JSON array, written as captured.NAME (in JSON syntax \"captured.NAME\"), such as for_each = captured.topics."))
		} else if !sc.captured[name] {
			diags = append(diags, attrError(attr, "Unknown capture", fmt.Sprintf("No earlier step captures %q; capture the array first, such as capture = { %s = json(\"meta.sub[*].topic\") }.", name, name)))
		} else {
			w.Items = name
		}
		max, mattr, d := l.intAttr(attrs, "max")
		diags = append(diags, d...)
		switch {
		case mattr == nil:
			diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Missing max",
				Detail: fmt.Sprintf("for_each step %q needs max = N, the most elements it runs for, so the schedule is known before the run.", b.Labels[0]), Subject: b.DefRange.Ptr()})
		case max < 1 || max > 10000:
			diags = append(diags, attrError(mattr, "Invalid max", fmt.Sprintf("max must be between 1 and 10000 (got %d).", max)))
		default:
			w.Max = int(max)
		}
	}
	return diags
}

func (l *loader) decodeAwait(b *hcl.Block, sc scope) (*Await, hcl.Diagnostics) {
	c, diags := b.Body.Content(awaitSchema)
	a := &Await{}
	attrs := c.Attributes
	if attr := attrs["json"]; attr != nil {
		jsc := sc
		jsc.what += " await json"
		v, d := l.eval(attr.Expr, jsc)
		diags = append(diags, d...)
		if !d.HasErrors() && v.IsWhollyKnown() {
			v, _ = v.UnmarkDeep()
			if v.IsNull() || !(v.Type().IsObjectType() || v.Type().IsMapType()) {
				diags = append(diags, attrError(attr, "Invalid await json", "json must be a map of JSON paths to the values they must equal, such as { \"ctrl.id\" = \"login-${seq}\" }."))
			} else {
				for it := v.ElementIterator(); it.Next(); {
					k, val := it.Element()
					text, ok := matchText(val)
					if !ok {
						diags = append(diags, attrError(attr, "Invalid await json", fmt.Sprintf("the value for %q must be a string, number or bool.", k.AsString())))
						continue
					}
					a.JSON = append(a.JSON, JSONMatch{Path: k.AsString(), Value: l.holes.template(text)})
				}
			}
		}
	}
	re, attr, d := l.stringAttr(attrs, "regex")
	diags = append(diags, d...)
	if attr != nil {
		if _, err := regexp.Compile(re); err != nil {
			diags = append(diags, attrError(attr, "Invalid regex", fmt.Sprintf("regex is not a valid regular expression: %v.", err)))
		}
		a.Regex = re
	}
	a.Timeout, diags = l.positiveDuration(attrs, "timeout", 0, diags)
	a.Status, _, d = l.stringAttr(attrs, "status")
	diags = append(diags, d...)
	return a, diags
}

// matchText is the text an await compares a JSON value with.
func matchText(v cty.Value) (string, bool) {
	if v.IsNull() {
		return "", false
	}
	switch v.Type() {
	case cty.String:
		return v.AsString(), true
	case cty.Number:
		return v.AsBigFloat().Text('f', -1), true
	case cty.Bool:
		if v.True() {
			return "true", true
		}
		return "false", true
	}
	return "", false
}

// sessionTarget is the target of a WebSocket step after the connect: the
// connect's, on whose connection its frames go. Naming it is allowed, and
// naming another is an error.
func (l *loader) sessionTarget(attrs hcl.Attributes, b *hcl.Block, sc scope, diags hcl.Diagnostics) (string, hcl.Diagnostics) {
	attr := attrs["target"]
	if sc.connectTarget == "" {
		return l.requestTarget(attrs, b, diags) // the connect did not decode: say what is missing here too
	}
	if attr == nil {
		return sc.connectTarget, diags
	}
	name, d := l.requestTarget(attrs, b, nil)
	diags = append(diags, d...)
	if name != "" && name != sc.connectTarget {
		diags = append(diags, attrError(attr, "Target differs from the connect's",
			fmt.Sprintf("step %q works on the session's WebSocket connection, to target %q (its connect's); leave target out, or start another scenario for another connection.", b.Labels[0], sc.connectTarget)))
	}
	return sc.connectTarget, diags
}
