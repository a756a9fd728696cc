package run

import (
	"fmt"
	"sync/atomic"
	"time"

	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/dynamicpb"

	"github.com/tressi/tressi/compile"
	"github.com/tressi/tressi/exec/internal/record"
	"github.com/tressi/tressi/grpc"
	"github.com/tressi/tressi/grpc/schema"
	"github.com/tressi/tressi/plan"
)

// CallStep is what a session step on a gRPC streaming call has beyond a
// Step's own fields (its await and captures are the Step's, as a
// WebSocket step's): how its reply decodes, what kind of stream it is.
// The open step has one too, saying what kind of stream it opens.
type CallStep struct {
	// Reply is the method's output type: a reply is decoded to protojson
	// when the await's json paths or a json capture read it.
	Reply      protoreflect.MessageDescriptor
	decodeJSON bool
	// ClientStreams: the call's messages come in later steps (the open
	// step sends none, and a half-close ends them); without it the open
	// step's request is the call's one message.
	ClientStreams bool
	// Counts are the stream's (its open step's), shared by every loop.
	Counts *StreamCounts
	// Deadline is the open step's grpc-timeout (0: none): a server's
	// RST_STREAM(CANCEL) once it passed is the deadline's, as grpc-go's
	// client decides.
	Deadline time.Duration
}

// StreamCounts count one stream's calls and messages over the run, by
// its open step: meta.json's grpc_streams.
type StreamCounts struct {
	// Calls opened; messages sent; replies received; replies no step's
	// await took (they did not match, or came with nothing awaiting them).
	Calls, Sent, Received, Unmatched atomic.Int64
}

// StreamFigures are the run's gRPC streams' counts, by open step; nil
// without streams.
func (ex *Executor) StreamFigures() map[string]record.StreamFigures {
	if len(ex.Streams) == 0 {
		return nil
	}
	out := make(map[string]record.StreamFigures, len(ex.Streams))
	for name, c := range ex.Streams {
		out[name] = record.StreamFigures{Calls: c.Calls.Load(), Sent: c.Sent.Load(), Received: c.Received.Load(), Unmatched: c.Unmatched.Load()}
	}
	return out
}

// newCallStep compiles sp's stream part, and ss's await and captures;
// schemas caches each target's schema, read from the .tplan's embedded
// descriptors once per run.
func newCallStep(ex *Executor, sp *compile.Step, ss *Step, schemas map[int]*schema.Schema, open **StreamCounts) (*CallStep, error) {
	st := sp
	if st.Kind == plan.StepCallOpen {
		*open = &StreamCounts{}
		if ex.Streams == nil {
			ex.Streams = map[string]*StreamCounts{}
		}
		ex.Streams[st.Name] = *open
	}
	if ss.Req == nil {
		return &CallStep{Counts: *open}, nil // a half-close: nothing to match
	}
	spec := ss.Req.Spec
	if spec.GRPC == nil {
		return nil, fmt.Errorf("step %q works on a gRPC stream, but its request is no gRPC call", st.Name)
	}
	sc := schemas[spec.Target]
	if sc == nil {
		t := ex.S.Targets[spec.Target]
		if t.GRPC == nil {
			return nil, fmt.Errorf("step %q: target %q has no gRPC schema", st.Name, t.Name)
		}
		var err error
		if sc, err = schema.FromProtoset(t.GRPC.Protoset); err != nil {
			return nil, fmt.Errorf("target %q's schema: %w", t.Name, err)
		}
		schemas[spec.Target] = sc
	}
	md, err := sc.Method(spec.GRPC.Method)
	if err != nil {
		return nil, fmt.Errorf("step %q: %w", st.Name, err)
	}
	cs := &CallStep{Reply: md.Output(), ClientStreams: md.IsStreamingClient(), Counts: *open}
	for _, h := range spec.Headers {
		if h.Name == "grpc-timeout" && len(h.Value.Segments) == 1 {
			cs.Deadline, _ = grpc.ParseTimeout(string(h.Value.Segments[0]))
		}
	}
	if err := ss.messageParts(sp); err != nil {
		return nil, err
	}
	cs.decodeJSON = ss.Await != nil && (len(ss.Await.Json) > 0 || ss.Await.status != nil)
	for i := range ss.Message {
		cs.decodeJSON = cs.decodeJSON || ss.Message[i].re == nil
	}
	return cs, nil
}

// Reply is a stream's reply as a step's await and captures read it: the
// message's bytes (what regex reads) and, when json paths read it, the
// message decoded to protojson (field names as the .proto writes them,
// every field present, zero values too).
type Reply struct {
	Raw, JSON []byte
}

// DecodeReply readies m, a reply's bytes, for this step: its protojson
// into buf when the step reads json paths (buf is reused; the message
// allocates, as dynamic messages do). A reply that does not decode has
// no JSON: json paths find nothing in it.
func (c *CallStep) DecodeReply(m, buf []byte) Reply {
	r := Reply{Raw: m}
	if !c.decodeJSON || c.Reply == nil {
		return r
	}
	msg := dynamicpb.NewMessage(c.Reply)
	if err := proto.Unmarshal(m, msg); err != nil {
		return r
	}
	out, err := replyJSON.MarshalAppend(buf[:0], msg)
	if err == nil {
		r.JSON = out
	}
	return r
}

var replyJSON = protojson.MarshalOptions{UseProtoNames: true, EmitUnpopulated: true}

// MatchesReply reports whether r, a stream's reply, answers the step's
// await, want holding the session's rendered values: json paths on the
// protojson, regex on the raw bytes.
func (st *Step) MatchesReply(r Reply, want [][]byte, scratch []byte) bool {
	a := st.Await
	if len(a.Json) > 0 {
		bare := *a
		bare.re = nil
		if !bare.Matches(r.JSON, want, scratch) {
			return false
		}
	}
	return a.re == nil || a.re.Match(r.Raw)
}

// ReplyStatus is the row's status of a matched reply: the number at the
// await's status path, or 0 (OK).
func (st *Step) ReplyStatus(r Reply) uint16 {
	if st.Await == nil || st.Await.status == nil {
		return 0
	}
	return st.Await.StatusOf(r.JSON)
}

// AppendCallMessage appends the length-prefixed message a stream's send
// step sends, rendered with v.
func AppendCallMessage(dst []byte, pr *PreparedRequest, v *compile.Values) []byte {
	dst = pr.Spec.Body.Append(dst, v)
	if g := pr.Spec.GRPC; g != nil && g.Message != nil {
		dst = appendGRPCMessage(dst, g.Message, v)
	}
	return dst
}
