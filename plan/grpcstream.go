package plan

import (
	"fmt"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/tressi/tressi/grpc"
)

// CallStep is what a step naming a gRPC stream holds beyond Step's own
// fields: the stream's open step, and how a reply is recognised.
type CallStep struct {
	Stream string // the name of the step that opened the call
	// Await, on a send or receive step, recognises the reply (nil on a
	// send: the message counts as done once written). It is the
	// WebSocket await, tried on the reply decoded to protojson.
	Await *Await
}

// callAttrs are the attributes that say what a step naming a stream does;
// a step has at most one of them, and a step with none sends a message
// (message = ...) or awaits a reply (an await block alone).
var callAttrs = []struct {
	name string
	kind StepKind
}{
	{"half_close", StepCallHalfClose},
	{"cancel", StepCallCancel},
	{"finish", StepCallFinish},
}

// callStepAttrs are the attributes a step naming a stream may set.
var callStepAttrs = map[string]bool{"stream": true, "target": true, "message": true, "capture": true, "repeat": true,
	"think": true, "think_max": true, "half_close": true, "cancel": true, "finish": true}

// openCall is what the steps after a stream's open step know of it.
type openCall struct {
	name       string // the open step's
	target     string
	desc       protoreflect.MethodDescriptor
	halfClosed bool // a half_close step, or a server stream (its one message ends the request)
	ended      bool // a cancel or finish step
	replies    int  // replies awaited so far, Σ repeat
}

// callOpened says whether st, just decoded as an HTTP step, opened a
// streaming call; it then becomes the scenario's open call.
func callOpened(st *Step) *openCall {
	g := st.GRPC
	if g == nil || g.Desc == nil || !(g.Desc.IsStreamingClient() || g.Desc.IsStreamingServer()) {
		return nil
	}
	st.Kind = StepCallOpen
	return &openCall{name: st.Name, target: st.Target, desc: g.Desc, halfClosed: !g.Desc.IsStreamingClient()}
}

// decodeCallStep reads a step naming a stream (stream = "STEP"): its kind
// from the attributes it sets, then what that kind needs, checked against
// what the stream is and what earlier steps did to it.
func (l *loader) decodeCallStep(c *hcl.BodyContent, b *hcl.Block, st *Step, sc scope, call *openCall) hcl.Diagnostics {
	attrs := c.Attributes
	var diags hcl.Diagnostics
	st.Kind = StepCallReceive // a stream step, whatever else is wrong with it
	for name, attr := range attrs {
		if !callStepAttrs[name] {
			diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Unsupported argument on a stream step",
				Detail:  fmt.Sprintf("step %q works on a gRPC stream, which takes message, await, capture, repeat, think, half_close, cancel or finish; %s belongs to another kind of step.", b.Labels[0], name),
				Subject: attr.NameRange.Ptr()})
		}
	}
	stream, sattr, d := l.stringAttr(attrs, "stream")
	diags = append(diags, d...)
	if d.HasErrors() {
		return diags
	}
	switch {
	case call == nil:
		return append(diags, attrError(sattr, "Unknown stream",
			fmt.Sprintf("no earlier step of this scenario opens a gRPC stream; open one first, such as step \"chat\" { rpc = \"pkg.Service/BidiMethod\" }, then name it: stream = \"chat\".")))
	case stream != call.name:
		return append(diags, attrError(sattr, "Unknown stream",
			fmt.Sprintf("the stream open here is step %q's; a session has one stream open at a time: name it, stream = %q.", call.name, call.name)))
	case call.ended:
		return append(diags, attrError(sattr, "Stream already ended",
			fmt.Sprintf("an earlier step cancels or finishes stream %q; open another stream for step %q.", call.name, b.Labels[0])))
	}
	if attr := attrs["target"]; attr != nil {
		name, d := l.requestTarget(attrs, b, nil)
		diags = append(diags, d...)
		if name != "" && name != call.target {
			diags = append(diags, attrError(attr, "Target differs from the stream's",
				fmt.Sprintf("step %q works on stream %q, to target %q; leave target out.", b.Labels[0], call.name, call.target)))
		}
	}
	st.Kind, d = callKind(c, b)
	diags = append(diags, d...)
	st.Call = &CallStep{Stream: call.name}
	st.Request = Request{DeclRange: b.DefRange, Target: call.target, Method: "POST", Path: LiteralTemplate("/" + grpcMethodName(call.desc))}
	g := &GRPCRequest{Method: grpcMethodName(call.desc), Desc: call.desc, DeclRange: b.DefRange}
	st.GRPC = g
	g.Message = &MessageValue{Desc: call.desc.Input()}
	for _, blk := range c.Blocks {
		switch {
		case blk.Type == "await" && (st.Kind == StepCallSend || st.Kind == StepCallReceive):
			if st.Call.Await != nil {
				diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Duplicate await block",
					Detail: "A stream step has at most one await block.", Subject: blk.DefRange.Ptr()})
				continue
			}
			st.Call.Await, d = l.decodeAwait(blk, sc)
			diags = append(diags, d...)
		case blk.Type == "expect" && (st.Kind == StepCallFinish || st.Kind == StepCallCancel):
			ec, d := blk.Body.Content(expectSchema)
			diags = append(diags, d...)
			codes, d := l.grpcStatusAttr(ec.Attributes, "status")
			diags = append(diags, d...)
			st.Expect = append(st.Expect, codes...)
		default:
			diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Unsupported block here",
				Detail:  fmt.Sprintf("step %q is a stream's %s step; await goes on message and receive steps, expect on finish and cancel steps.", b.Labels[0], st.Kind),
				Subject: blk.DefRange.Ptr()})
		}
	}
	switch st.Kind {
	case StepCallSend:
		switch {
		case !call.desc.IsStreamingClient():
			diags = append(diags, attrError(attrs["message"], "Send on a server-streaming call",
				fmt.Sprintf("%s takes one message, which its open step %q sends; later steps await its replies (an await block without message).", g.Method, call.name)))
		case call.halfClosed:
			diags = append(diags, attrError(attrs["message"], "Send after half-close",
				fmt.Sprintf("an earlier step half-closes stream %q, so it sends no more messages; move step %q before the half_close.", call.name, b.Labels[0])))
		}
		v, d := l.eval(attrs["message"].Expr, sc)
		diags = append(diags, d...)
		if !d.HasErrors() && !v.IsNull() && v.IsWhollyKnown() {
			mv, d := l.messageValue(attrs["message"], v, call.desc.Input(), "message", sc)
			diags = append(diags, d...)
			if mv != nil {
				g.Message = mv
			}
		}
	case StepCallReceive:
		if st.Call.Await == nil {
			diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Stream step without action",
				Detail:  fmt.Sprintf("step %q names stream %q but does nothing: send with message = { ... }, await a reply with an await block (await {} takes the next), or end it with half_close, cancel or finish = true.", b.Labels[0], call.name),
				Subject: b.DefRange.Ptr()})
		}
	case StepCallHalfClose:
		call.halfClosed = true
	case StepCallCancel:
		call.ended = true
		if len(st.Expect) == 0 {
			st.Expect = []int{int(grpc.Canceled)}
		}
	case StepCallFinish:
		call.ended, call.halfClosed = true, true
	}
	if st.Call.Await != nil {
		call.replies += max(l.repeatOf(attrs), 1)
		if !call.desc.IsStreamingServer() && call.replies > 1 {
			diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Await with no reply left",
				Detail:  fmt.Sprintf("%s answers with one reply, and earlier steps (or this one's repeats) already await it; await it once, or finish the stream to read its status.", g.Method),
				Subject: b.DefRange.Ptr()})
		}
	}
	for _, cp := range st.Captures {
		switch {
		case st.Call.Await == nil:
			diags = append(diags, attrError(attrs["capture"], "Capture without await",
				fmt.Sprintf("step %q captures from the reply that answers it, so it needs an await block, such as await { json = { text = \"...\" } }.", b.Labels[0])))
		case cp.Kind != CaptureJSON && cp.Kind != CaptureRegex:
			diags = append(diags, attrError(attrs["capture"], "Invalid capture",
				fmt.Sprintf("capture %q: a stream's reply is a message; capture with json(\"PATH\") over its protojson, or regex(\"RE\").", cp.Name)))
		}
	}
	return diags
}

// callKind is what a step naming a stream does, from the one attribute
// of callAttrs it sets (each must be true), or message, or an await alone.
func callKind(c *hcl.BodyContent, b *hcl.Block) (StepKind, hcl.Diagnostics) {
	kind := StepCallReceive
	if c.Attributes["message"] != nil {
		kind = StepCallSend
	}
	var first *hcl.Attribute
	var diags hcl.Diagnostics
	for _, ka := range callAttrs {
		attr := c.Attributes[ka.name]
		if attr == nil {
			continue
		}
		if v, d := attr.Expr.Value(nil); d.HasErrors() || v.IsNull() || v.Type() != cty.Bool || v.False() {
			diags = append(diags, attrError(attr, "Invalid "+ka.name, fmt.Sprintf("%s = true is the only value; leave it out otherwise.", ka.name)))
		}
		if first != nil || kind == StepCallSend {
			what := "message"
			if first != nil {
				what = first.Name
			}
			diags = append(diags, attrError(attr, "Conflicting step kinds",
				fmt.Sprintf("step %q sets both %s and %s; a step does one thing: split it into two steps.", b.Labels[0], what, attr.Name)))
			continue
		}
		kind, first = ka.kind, attr
	}
	if first != nil {
		if attr := c.Attributes["repeat"]; attr != nil {
			diags = append(diags, attrError(attr, "Unsupported argument here", fmt.Sprintf("step %q ends the stream's sending or the stream itself, once: leave repeat out.", b.Labels[0])))
		}
	}
	return kind, diags
}

// repeatOf is the step's repeat, 1 when unset or invalid (the repeat's
// own diagnostic says why).
func (l *loader) repeatOf(attrs hcl.Attributes) int {
	n, attr, d := l.intAttr(attrs, "repeat")
	if attr == nil || d.HasErrors() || n <= 0 || n > 1<<30 {
		return 1
	}
	return int(n)
}

// grpcMethodName is "pkg.Service/Method".
func grpcMethodName(md protoreflect.MethodDescriptor) string {
	return string(md.Parent().FullName()) + "/" + string(md.Name())
}

// streamOpenChecks: a stream's open step captures nothing (its answer
// comes in later steps), and opens no second stream while one is open.
func streamOpenChecks(st *Step, open *openCall, attrs hcl.Attributes) hcl.Diagnostics {
	var diags hcl.Diagnostics
	if attr := attrs["capture"]; attr != nil {
		diags = append(diags, attrError(attr, "Capture on a stream's open step",
			fmt.Sprintf("step %q opens a stream, which answers in later steps: capture in the step that awaits the reply.", st.Name)))
	}
	if open != nil && !open.ended {
		diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Second open stream",
			Detail:  fmt.Sprintf("stream %q is still open when step %q opens another; a session has one stream open at a time: end the first with finish = true or cancel = true before.", open.name, st.Name),
			Subject: st.DeclRange.Ptr()})
	}
	return diags
}
