package plan

import (
	"fmt"

	"github.com/hashicorp/hcl/v2"
)

func (l *loader) decodeScenarioBlock(b *hcl.Block) (*Scenario, hcl.Diagnostics) {
	content, diags := b.Body.Content(scenarioSchema)
	s := &Scenario{Name: b.Labels[0], DeclRange: b.DefRange}
	diags = append(diags, l.claimName("scenario", s.Name, b)...)
	attrs := content.Attributes

	s.Weight, diags = l.scenarioWeight(attrs, diags)
	think, _, d := l.durationAttr(attrs, "think")
	diags = append(diags, d...)
	s.Think = think
	mode, d := l.enumAttr(attrs, "connection", ConnectionPool, ConnectionSession)
	diags = append(diags, d...)
	s.Connection = mode
	s.Cookies, d = l.decodeCookies(attrs, false)
	diags = append(diags, d...)

	var steps []*hcl.Block
	for _, sb := range content.Blocks {
		if sb.Type == "step" {
			steps = append(steps, sb)
		}
	}
	data, noRow, d := l.scenarioData(attrs, steps)
	diags = append(diags, d...)
	if data != nil {
		s.Data = data.Name
	}
	if len(steps) == 0 {
		diags = append(diags, &hcl.Diagnostic{
			Severity: hcl.DiagError,
			Summary:  "Scenario without steps",
			Detail:   fmt.Sprintf("Scenario %q has no step blocks. Add at least one, such as `step \"home\" { path = \"/\" }`.", s.Name),
			Subject:  b.DefRange.Ptr(),
		})
	}

	at := connectIndex(steps)
	ws := at >= 0
	s.Steps, d = l.decodeSteps(s.Name, steps, data, noRow, stepContext{websocket: ws, httpBefore: max(at, 0), captured: map[string]bool{}})
	diags = append(diags, d...)
	if ws {
		diags = append(diags, checkWebSocketOrder(s)...)
	}
	diags = append(diags, checkCookieCaptures(s, ws)...)
	return s, diags
}

// connectIndex is where a WebSocket session's connect step is among the
// scenario's steps, -1 when none connects (an HTTP scenario). HTTP steps
// may come before it (log in, get a token for the connect's headers).
func connectIndex(steps []*hcl.Block) int {
	for i, b := range steps {
		if c, _, _ := b.Body.PartialContent(stepSchema); c.Attributes["connect"] != nil {
			return i
		}
	}
	return -1
}

// checkWebSocketOrder: one connect, at the top level; HTTP steps only
// before it.
func checkWebSocketOrder(s *Scenario) hcl.Diagnostics {
	var diags hcl.Diagnostics
	connects := 0
	var walk func(steps []*Step, top bool)
	walk = func(steps []*Step, top bool) {
		for _, st := range steps {
			if st.Kind == StepConnect {
				connects++
			}
			if st.Kind == StepConnect && (!top || connects > 1) {
				diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Second connect",
					Detail: fmt.Sprintf("A WebSocket session connects once, in a step of its own at the top level (HTTP steps may come before it); step %q connects again. Start another scenario for another connection.", st.Name), Subject: st.DeclRange.Ptr()})
			}
			if st.WebSocket != nil {
				walk(st.WebSocket.Steps, false)
			}
		}
	}
	walk(s.Steps, true)
	return diags
}

// stepContext is what the steps being decoded may use: whether they are in
// a WebSocket session (and how many HTTP steps come before its connect),
// inside a for_each, and what earlier steps captured.
type stepContext struct {
	websocket     bool
	httpBefore    int
	connectTarget string // the connect's target, for the steps after it
	each          bool
	captured      map[string]bool
}

// scenarioData picks the data block feeding row.*: the one named by `data`,
// or the plan's only data block when a step uses row.*.
func (l *loader) scenarioData(attrs hcl.Attributes, steps []*hcl.Block) (*Data, string, hcl.Diagnostics) {
	name, attr, diags := l.stringAttr(attrs, "data")
	if attr != nil {
		d := l.data[name]
		if d == nil {
			diags = append(diags, attrError(attr, "Unknown data block", fmt.Sprintf("No data block %q is declared%s.", name, available("declared", mapKeys(l.data)))))
			return nil, fmt.Sprintf("data %q is not declared.", name), diags
		}
		return d, "", diags
	}
	d, why := l.soleData("A scenario without `data = \"...\"`")
	if d == nil {
		return nil, why, diags
	}
	for _, sb := range steps {
		if c, _, _ := sb.Body.PartialContent(stepSchema); contentUsesRoot(c, "row") {
			return d, "", diags
		}
	}
	return nil, "", diags
}

// decodeSteps decodes a scenario's steps in order: each may use what earlier
// steps captured (sctx.captured, which it extends).
func (l *loader) decodeSteps(scenario string, blocks []*hcl.Block, data *Data, noRow string, sctx stepContext) ([]*Step, hcl.Diagnostics) {
	var diags hcl.Diagnostics
	contents := make([]*hcl.BodyContent, len(blocks))
	captures := make([][]Capture, len(blocks))
	later := map[string]string{}
	for i, b := range blocks {
		c, d := b.Body.Content(stepSchema)
		diags = append(diags, d...)
		contents[i] = c
		if attr := c.Attributes["capture"]; attr != nil {
			captures[i], d = l.decodeCaptures(attr)
			diags = append(diags, d...)
			for _, c := range captures[i] {
				if _, seen := later[c.Name]; !seen {
					later[c.Name] = b.Labels[0]
				}
			}
		}
	}

	var steps []*Step
	var call *openCall // the gRPC stream a step opened, for the steps naming it
	captured := sctx.captured
	connectTarget := sctx.connectTarget
	firstStep := map[string]hcl.Range{}
	for i, b := range blocks {
		st := &Step{Name: b.Labels[0], Repeat: 1, Think: -1, Captures: captures[i], DeclRange: b.DefRange}
		if first, dup := firstStep[st.Name]; dup {
			diags = append(diags, duplicate("step", st.Name, b.DefRange, first))
		}
		firstStep[st.Name] = b.DefRange
		pending := map[string]string{}
		for name, step := range later {
			if !captured[name] {
				pending[name] = step
			}
		}
		sc := scope{
			what:       fmt.Sprintf("scenario %q step %q", scenario, st.Name),
			perRequest: true,
			data:       data,
			noRow:      noRow,
			captured:   copySet(captured),
			later:      pending,
			each:       sctx.each,
		}
		sc.connectTarget = connectTarget
		var d hcl.Diagnostics
		websocket := sctx.websocket && i >= sctx.httpBefore // HTTP steps may precede the connect
		sc.streams = !websocket && !sctx.each
		if contents[i].Attributes["stream"] != nil && sc.streams {
			diags = append(diags, l.decodeCallStep(contents[i], b, st, sc, call)...)
		} else {
			st.Kind, d = stepKind(contents[i], b, websocket)
			diags = append(diags, d...)
		}
		switch {
		case st.Kind.Call():
			// decoded above
		case st.Kind == StepHTTP && websocket:
			diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "HTTP step in a WebSocket scenario",
				Detail: fmt.Sprintf("Scenario %q is a WebSocket session from its connect on, so step %q must send, hold, think, close or for_each; HTTP requests may only come before the connect step (to log in, say), or go in another scenario.", scenario, st.Name), Subject: b.DefRange.Ptr()})
		case st.Kind != StepHTTP && !websocket && sctx.websocket:
			diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "WebSocket step before connect",
				Detail: fmt.Sprintf("Step %q is a %s step, which needs the WebSocket connection: move it after the connect step; only HTTP steps may come before it.", st.Name, st.Kind), Subject: b.DefRange.Ptr()})
		case st.Kind != StepHTTP && !websocket:
			diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "WebSocket step without connect",
				Detail: fmt.Sprintf("Step %q is a %s step, which needs a WebSocket connection: give the scenario a connect step before it, such as step \"connect\" { connect = \"/ws\" }.", st.Name, st.Kind), Subject: b.DefRange.Ptr()})
		case st.Kind == StepHTTP:
			st.Request, d = l.decodeRequest(contents[i], b, sc)
			diags = append(diags, d...)
			diags = append(diags, grpcStepCaptures(st)...)
			if opened := callOpened(st); opened != nil {
				diags = append(diags, streamOpenChecks(st, call, contents[i].Attributes)...)
				call = opened
			}
		default:
			diags = append(diags, l.decodeWebSocket(contents[i], b, st, sc)...)
			diags = append(diags, grpcOnWebSocketStep(contents[i].Attributes, st)...)
		}
		if st.Kind == StepForEach && st.WebSocket != nil {
			var nested []*hcl.Block
			for _, nb := range contents[i].Blocks {
				if nb.Type == "step" {
					nested = append(nested, nb)
				}
			}
			if len(nested) == 0 {
				diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "for_each without steps",
					Detail: fmt.Sprintf("for_each step %q runs its nested step blocks once per element; add at least one.", st.Name), Subject: b.DefRange.Ptr()})
			}
			inner := stepContext{websocket: true, each: true, captured: copySet(captured), connectTarget: connectTarget}
			st.WebSocket.Steps, d = l.decodeSteps(scenario, nested, data, noRow, inner)
			diags = append(diags, d...)
			for _, ns := range st.WebSocket.Steps {
				if ns.Kind == StepForEach || ns.Kind == StepHold {
					diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Unsupported step in for_each",
						Detail: fmt.Sprintf("step %q inside for_each %q is a %s step; a for_each holds send, think and close steps.", ns.Name, st.Name, ns.Kind), Subject: ns.DeclRange.Ptr()})
				}
			}
		}

		repeat, attr, d := l.intAttr(contents[i].Attributes, "repeat")
		diags = append(diags, d...)
		if attr != nil && (repeat <= 0 || repeat > 1<<30) {
			diags = append(diags, attrError(attr, "Invalid repeat", fmt.Sprintf("repeat must be a whole number > 0 (got %d).", repeat)))
		} else if attr != nil {
			st.Repeat = int(repeat)
		}
		think, attr, d := l.durationAttr(contents[i].Attributes, "think")
		diags = append(diags, d...)
		if attr != nil {
			st.Think = think
		}
		thinkMax, maxAttr, d := l.durationAttr(contents[i].Attributes, "think_max")
		diags = append(diags, d...)
		if maxAttr != nil {
			if attr == nil || thinkMax < think {
				diags = append(diags, attrError(maxAttr, "Invalid think_max", fmt.Sprintf("think_max makes each pause random between think and think_max, so it needs think set and no smaller than it (think %s, think_max %s).", think, thinkMax)))
			} else {
				st.ThinkMax = thinkMax
			}
		}
		for _, c := range st.Captures {
			captured[c.Name] = true
		}
		if st.Kind == StepConnect {
			connectTarget = st.Target
		}
		steps = append(steps, st)
	}
	return steps, diags
}

func copySet(m map[string]bool) map[string]bool {
	out := make(map[string]bool, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// scenarioWeight is weight, where 0 is allowed: a scenario a variable
// switches off (weight = var.test == "x" ? 1 : 0) never starts.
func (l *loader) scenarioWeight(attrs hcl.Attributes, diags hcl.Diagnostics) (int, hcl.Diagnostics) {
	if attr := attrs["weight"]; attr != nil {
		if w, _, _ := l.intAttr(attrs, "weight"); w == 0 {
			return 0, diags
		}
	}
	return l.weight(attrs, diags)
}
