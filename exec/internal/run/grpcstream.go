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

// CallStep is a session step on a gRPC streaming call made ready to run:
// how its reply is recognised and what it captures. The open step has
// one too, saying what kind of stream it opens.
type CallStep struct {
	// Await recognises the reply (nil: a send is done once written).
	Await   *wsAwait
	Capture []wsCapture
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

// newCallStep compiles st's stream part; schemas caches each target's
// schema, read from the .tplan's embedded descriptors once per run.
func newCallStep(ex *Executor, st *compile.Step, ss *SessionStep, schemas map[int]*schema.Schema, open **StreamCounts) (*CallStep, error) {
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
	if w := st.WebSocket; w != nil && w.Await != nil {
		cs.Await, ss.Needs, err = newWSAwait(st.Name, w.Await, ss.Req, ss.Needs)
		if err != nil {
			return nil, err
		}
		cs.decodeJSON = len(cs.Await.Json) > 0 || cs.Await.status != nil
	}
	for _, c := range st.Captures {
		wc, err := newWSCapture(c)
		if err != nil {
			return nil, fmt.Errorf("step %q: %w", st.Name, err)
		}
		cs.Capture = append(cs.Capture, wc)
		cs.decodeJSON = cs.decodeJSON || wc.re == nil
	}
	ss.Capture = nil // a reply's captures are cs's, not the HTTP response's
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

// Matches reports whether r answers the step's await, want holding the
// session's rendered values: json paths on the protojson, regex on the
// raw bytes.
func (c *CallStep) Matches(r Reply, want [][]byte, scratch []byte) bool {
	a := c.Await
	if len(a.Json) > 0 {
		bare := *a
		bare.re = nil
		if !bare.Matches(r.JSON, want, scratch) {
			return false
		}
	}
	return a.re == nil || a.re.Match(r.Raw)
}

// Status is the row's status of a matched reply: the number at the
// await's status path, or 0 (OK).
func (c *CallStep) Status(r Reply) uint16 {
	if c.Await == nil || c.Await.status == nil {
		return 0
	}
	return c.Await.StatusOf(r.JSON)
}

// Want appends the await's json values rendered with v to dst (reused).
func (c *CallStep) Want(dst [][]byte, v *compile.Values) [][]byte {
	n := 0
	for i := range c.Await.Json {
		var buf []byte
		if n < cap(dst) {
			buf = dst[:n+1][n][:0]
		}
		dst = append(dst[:n], c.Await.Json[i].Value.Append(buf, v))
		n++
	}
	return dst[:n]
}

// Captures fills the step's capture slots from r; ok false (the reply's
// status outside expect) leaves each of them missing.
func (c *CallStep) Captures(captured [][]byte, have []bool, r Reply, ok bool) {
	for i := range c.Capture {
		cp := &c.Capture[i]
		if !ok {
			have[cp.Index] = false
			continue
		}
		src := r.JSON
		if cp.re != nil {
			src = r.Raw
		}
		captured[cp.Index], have[cp.Index] = cp.Extract(captured[cp.Index][:0], src)
	}
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
