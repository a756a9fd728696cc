package compile

import (
	"slices"
	"time"

	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/tressi/tressi/plan"
	"github.com/tressi/tressi/results"
)

// The .tplan header's wire structs: the file format, spelled out. The
// schedule's Go types are converted to and from them, so a Go field can be
// renamed without changing what a .tplan holds. The JSON names are those
// the header has always had (the Go field names of the first format);
// testdata/tplan/header.golden.json pins them. Durations are ns.

type wireTarget struct {
	Name               string `json:"Name"`
	Scheme             string `json:"Scheme"`
	Addr               string `json:"Addr"`
	Host               string `json:"Host"`
	Connections        int    `json:"Connections"`
	Connection         string `json:"Connection"`
	Timeout            int64  `json:"Timeout"`
	ConnectTimeout     int64  `json:"ConnectTimeout"`
	InsecureSkipVerify bool   `json:"InsecureSkipVerify"`
	// Added after the first format, each only when set, so older files
	// read as before and plans without them write what they always did.
	SourceAddresses []string        `json:"SourceAddresses,omitempty"`
	TLS             *wireTargetTLS  `json:"TLS,omitempty"`
	Protocol        string          `json:"Protocol,omitempty"`
	MaxStreams      int             `json:"MaxStreams,omitempty"`
	GRPC            *wireGRPCTarget `json:"GRPC,omitempty"`
}

// wireGRPCTarget embeds a gRPC target's schema (a FileDescriptorSet).
type wireGRPCTarget struct {
	Protoset []byte `json:"Protoset"`
}

type wireGRPCCall struct {
	Method  string       `json:"Method"`
	Message *wireMessage `json:"Message,omitempty"`
}

type wireMessage struct {
	Parts []wireMessagePart `json:"Parts"`
}

type wireMessagePart struct {
	Fixed    []byte       `json:"Fixed,omitempty"`
	Tag      []byte       `json:"Tag,omitempty"`
	Kind     uint8        `json:"Kind,omitempty"`
	Value    *wireSplice  `json:"Value,omitempty"`
	Nested   *wireMessage `json:"Nested,omitempty"`
	Implicit bool         `json:"Implicit,omitempty"`
}

type wireTargetTLS struct {
	CAFile       string `json:"CAFile,omitempty"`
	CertFile     string `json:"CertFile,omitempty"`
	KeyFile      string `json:"KeyFile,omitempty"`
	ServerName   string `json:"ServerName,omitempty"`
	MinVersion   string `json:"MinVersion,omitempty"`
	MaxVersion   string `json:"MaxVersion,omitempty"`
	NoResumption bool   `json:"NoResumption,omitempty"`
}

type wireSplice struct {
	Segments [][]byte   `json:"Segments"`
	Holes    []wireHole `json:"Holes"`
}

type wireHole struct {
	Kind        uint8  `json:"Kind"`
	Index       int    `json:"Index"`
	Min         int64  `json:"Min"`
	Max         int64  `json:"Max"`
	JSONEscape  bool   `json:"JSONEscape"`
	QueryEscape bool   `json:"QueryEscape,omitempty"`
	URIEscape   bool   `json:"URIEscape,omitempty"`
	ID          uint32 `json:"ID"`
}

type wireHeader struct {
	Name  string     `json:"Name"`
	Value wireSplice `json:"Value"`
}

type wireRequest struct {
	Name    string        `json:"Name"`
	Target  int           `json:"Target"`
	Method  string        `json:"Method"`
	URI     wireSplice    `json:"URI"`
	Headers []wireHeader  `json:"Headers"`
	Body    wireSplice    `json:"Body"`
	Expect  []int         `json:"Expect"`
	Static  bool          `json:"Static"`
	GRPC    *wireGRPCCall `json:"GRPC,omitempty"`
	Digest  *DigestAuth   `json:"Digest,omitempty"`
	// Redirects: absent in plans that follow none, so their .tplan is unchanged.
	Redirects int         `json:"Redirects,omitempty"`
	Checks    []wireCheck `json:"Checks,omitempty"`
}

// wireCheck is a request's check block; only in plans that have them.
type wireCheck struct {
	Name    string `json:"Name"`
	Subject uint8  `json:"Subject"`
	Path    string `json:"Path,omitempty"`
	Op      uint8  `json:"Op"`
	Value   string `json:"Value,omitempty"`
	Exists  bool   `json:"Exists,omitempty"`
	MinSize int64  `json:"MinSize"`
	MaxSize int64  `json:"MaxSize"`
}

type wireCapture struct {
	Name  string `json:"Name"`
	Kind  uint8  `json:"Kind"`
	Expr  string `json:"Expr"`
	Index int    `json:"Index"`
}

type wireStep struct {
	Name     string        `json:"Name"`
	Request  int           `json:"Request"`
	Repeat   int           `json:"Repeat"`
	Think    int64         `json:"Think"`
	Captures []wireCapture `json:"Captures"`
	// Newer than the first format, each only when set: a think range, and
	// the kind and WebSocket part of a session's step (connect, send, hold,
	// close, for_each). Without them a WebSocket plan's .tplan read back
	// with HTTP steps only, and its hash no longer matched.
	ThinkMax  int64          `json:"ThinkMax,omitempty"`
	Kind      uint8          `json:"Kind,omitempty"`
	WebSocket *wireWebSocket `json:"WebSocket,omitempty"`
}

type wireWebSocket struct {
	Subprotocols []string   `json:"Subprotocols,omitempty"`
	Binary       bool       `json:"Binary,omitempty"`
	Wait         bool       `json:"Wait,omitempty"`
	Marked       bool       `json:"Marked,omitempty"`
	SkipIf       string     `json:"SkipIf,omitempty"`
	ExitIfFailed bool       `json:"ExitIfFailed,omitempty"`
	Await        *wireAwait `json:"Await,omitempty"`
	Hold         int64      `json:"Hold,omitempty"`
	CloseCode    int        `json:"CloseCode,omitempty"`
	Items        int        `json:"Items"`
	Max          int        `json:"Max,omitempty"`
	Steps        []wireStep `json:"Steps,omitempty"`
}

type wireAwait struct {
	JSON    []wireJSONMatch `json:"JSON,omitempty"`
	Regex   string          `json:"Regex,omitempty"`
	Timeout int64           `json:"Timeout"`
	Status  string          `json:"Status,omitempty"`
}

type wireJSONMatch struct {
	Path  string     `json:"Path"`
	Value wireSplice `json:"Value"`
}

type wireEntry struct {
	Name       string     `json:"Name"`
	Weight     int        `json:"Weight"`
	Scenario   bool       `json:"Scenario"`
	Steps      []wireStep `json:"Steps"`
	MaxRate    float64    `json:"MaxRate"`
	Data       int        `json:"Data"`
	Connection string     `json:"Connection"`
	Think      int64      `json:"Think"`
	Cookies    string     `json:"Cookies,omitempty"`
}

type wireData struct {
	Name    string     `json:"Name"`
	Columns []string   `json:"Columns"`
	Rows    [][]string `json:"Rows"`
	Random  bool       `json:"Random"`
}

type wireUser struct {
	Start int64 `json:"Start"`
	Stop  int64 `json:"Stop"`
}

type wireThresholds struct {
	ErrorRate   float64 `json:"ErrorRate"`
	ErrorCount  int64   `json:"ErrorCount"`
	StatusCodes []int   `json:"StatusCodes"`
	P50         int64   `json:"P50"`
	P90         int64   `json:"P90"`
	P95         int64   `json:"P95"`
	P99         int64   `json:"P99"`
	P999        int64   `json:"P999"`
	Abort       bool    `json:"Abort"`
	// AllowAllFailed is new in format 1's header: older files lack it
	// (false, the default).
	AllowAllFailed bool `json:"AllowAllFailed"`
	// Max and the live latency settings are newer still: left out when
	// unset, so files without them read (and hash) as before.
	Max          int64   `json:"Max,omitempty"`
	LiveWindow   int64   `json:"LiveWindow,omitempty"`
	LiveDelay    int64   `json:"LiveDelay,omitempty"`
	LiveMinCount int64   `json:"LiveMinCount,omitempty"`
	CheckRate    float64 `json:"CheckRate,omitempty"`
}

// mapSlice converts a slice element by element, keeping nil as nil (the
// header has always written empty lists as null).
func mapSlice[A, B any](in []A, f func(A) B) []B {
	if in == nil {
		return nil
	}
	out := make([]B, len(in))
	for i, a := range in {
		out[i] = f(a)
	}
	return out
}

func toWireTarget(t Target) wireTarget {
	w := wireTarget{Name: t.Name, Scheme: t.Scheme, Addr: t.Addr, Host: t.Host, Connections: t.Connections,
		Connection: t.Connection, Timeout: int64(t.Timeout), ConnectTimeout: int64(t.ConnectTimeout),
		InsecureSkipVerify: t.InsecureSkipVerify, SourceAddresses: t.SourceAddresses,
		Protocol: t.Protocol, MaxStreams: t.MaxStreams}
	if t.GRPC != nil {
		w.GRPC = &wireGRPCTarget{Protoset: t.GRPC.Protoset}
	}
	if t.TLS != (TargetTLS{}) {
		w.TLS = &wireTargetTLS{CAFile: t.TLS.CAFile, CertFile: t.TLS.CertFile, KeyFile: t.TLS.KeyFile,
			ServerName: t.TLS.ServerName, MinVersion: t.TLS.MinVersion, MaxVersion: t.TLS.MaxVersion,
			NoResumption: t.TLS.NoResumption}
	}
	return w
}

func fromWireTarget(w wireTarget) Target {
	t := Target{Name: w.Name, Scheme: w.Scheme, Addr: w.Addr, Host: w.Host, Connections: w.Connections,
		Connection: w.Connection, Timeout: time.Duration(w.Timeout), ConnectTimeout: time.Duration(w.ConnectTimeout),
		InsecureSkipVerify: w.InsecureSkipVerify, SourceAddresses: w.SourceAddresses,
		Protocol: w.Protocol, MaxStreams: w.MaxStreams}
	if w.GRPC != nil {
		t.GRPC = &TargetGRPC{Protoset: w.GRPC.Protoset}
	}
	if w.TLS != nil {
		t.TLS = TargetTLS{CAFile: w.TLS.CAFile, CertFile: w.TLS.CertFile, KeyFile: w.TLS.KeyFile,
			ServerName: w.TLS.ServerName, MinVersion: w.TLS.MinVersion, MaxVersion: w.TLS.MaxVersion,
			NoResumption: w.TLS.NoResumption}
	}
	return t
}

func toWireSplice(s Splice) wireSplice {
	return wireSplice{Segments: s.Segments, Holes: mapSlice(s.Holes, func(h Hole) wireHole {
		return wireHole{Kind: uint8(h.Kind), Index: h.Index, Min: h.Min, Max: h.Max, JSONEscape: h.JSONEscape,
			QueryEscape: h.QueryEscape, URIEscape: h.URIEscape, ID: h.ID}
	})}
}

func fromWireSplice(w wireSplice) Splice {
	return Splice{Segments: w.Segments, Holes: mapSlice(w.Holes, func(h wireHole) Hole {
		return Hole{Kind: plan.HoleKind(h.Kind), Index: h.Index, Min: h.Min, Max: h.Max, JSONEscape: h.JSONEscape,
			QueryEscape: h.QueryEscape, URIEscape: h.URIEscape, ID: h.ID}
	})}
}

func toWireRequest(r Request) wireRequest {
	return wireRequest{Name: r.Name, Target: r.Target, Method: r.Method, URI: toWireSplice(r.URI),
		Headers: mapSlice(r.Headers, func(h HeaderSplice) wireHeader {
			return wireHeader{Name: h.Name, Value: toWireSplice(h.Value)}
		}),
		Body: toWireSplice(r.Body), Expect: r.Expect, Static: r.Static, GRPC: toWireGRPCCall(r.GRPC), Digest: r.Digest, Redirects: r.Redirects,
		Checks: mapSlice(r.Checks, func(c Check) wireCheck {
			return wireCheck{Name: c.Name, Subject: uint8(c.Subject), Path: c.Path, Op: uint8(c.Op), Value: c.Value,
				Exists: c.Exists, MinSize: c.MinSize, MaxSize: c.MaxSize}
		})}
}

func toWireGRPCCall(g *GRPCCall) *wireGRPCCall {
	if g == nil {
		return nil
	}
	return &wireGRPCCall{Method: g.Method, Message: toWireMessage(g.Message)}
}

func fromWireGRPCCall(w *wireGRPCCall) *GRPCCall {
	if w == nil {
		return nil
	}
	return &GRPCCall{Method: w.Method, Message: fromWireMessage(w.Message)}
}

func toWireMessage(m *MessageTemplate) *wireMessage {
	if m == nil {
		return nil
	}
	return &wireMessage{Parts: mapSlice(m.Parts, func(p MessagePart) wireMessagePart {
		w := wireMessagePart{Fixed: p.Fixed, Tag: p.Tag, Kind: uint8(p.Kind), Nested: toWireMessage(p.Nested), Implicit: p.Implicit}
		if p.Fixed == nil && p.Nested == nil {
			v := toWireSplice(p.Value)
			w.Value = &v
		}
		return w
	})}
}

func fromWireMessage(w *wireMessage) *MessageTemplate {
	if w == nil {
		return nil
	}
	return &MessageTemplate{Parts: mapSlice(w.Parts, func(wp wireMessagePart) MessagePart {
		p := MessagePart{Fixed: wp.Fixed, Tag: wp.Tag, Kind: protoreflect.Kind(wp.Kind), Nested: fromWireMessage(wp.Nested), Implicit: wp.Implicit}
		if wp.Value != nil {
			p.Value = fromWireSplice(*wp.Value)
		} else if p.Nested == nil && p.Fixed == nil {
			p.Fixed = []byte{} // a fixed run that encodes to nothing
		}
		return p
	})}
}

func fromWireRequest(w wireRequest) Request {
	return Request{Name: w.Name, Target: w.Target, Method: w.Method, URI: fromWireSplice(w.URI),
		Headers: mapSlice(w.Headers, func(h wireHeader) HeaderSplice {
			return HeaderSplice{Name: h.Name, Value: fromWireSplice(h.Value)}
		}),
		Body: fromWireSplice(w.Body), Expect: w.Expect, Static: w.Static, GRPC: fromWireGRPCCall(w.GRPC), Digest: w.Digest, Redirects: w.Redirects,
		Checks: mapSlice(w.Checks, func(c wireCheck) Check {
			return Check{Name: c.Name, Subject: plan.CheckSubject(c.Subject), Path: c.Path, Op: plan.CheckOp(c.Op), Value: c.Value,
				Exists: c.Exists, MinSize: c.MinSize, MaxSize: c.MaxSize}
		})}
}

func toWireEntry(e Entry) wireEntry {
	return wireEntry{Name: e.Name, Weight: e.Weight, Scenario: e.Scenario, MaxRate: e.MaxRate, Data: e.Data,
		Connection: e.Connection, Think: int64(e.Think), Steps: mapSlice(e.Steps, toWireStep), Cookies: e.Cookies}
}

func fromWireEntry(w wireEntry) Entry {
	e := Entry{Name: w.Name, Weight: w.Weight, Scenario: w.Scenario, MaxRate: w.MaxRate, Data: w.Data,
		Connection: w.Connection, Think: time.Duration(w.Think), Steps: mapSlice(w.Steps, fromWireStep), Cookies: w.Cookies}
	// Derived, as Compile derives it: a scenario that connects is a WebSocket session.
	e.WebSocket = slices.ContainsFunc(e.Steps, func(st Step) bool { return st.Kind == plan.StepConnect })
	return e
}

func toWireStep(s Step) wireStep {
	return wireStep{Name: s.Name, Request: s.Request, Repeat: s.Repeat, Think: int64(s.Think),
		Captures: mapSlice(s.Captures, func(c Capture) wireCapture {
			return wireCapture{Name: c.Name, Kind: uint8(c.Kind), Expr: c.Expr, Index: c.Index}
		}),
		ThinkMax: int64(s.ThinkMax), Kind: uint8(s.Kind), WebSocket: toWireWebSocket(s.WebSocket)}
}

func fromWireStep(s wireStep) Step {
	return Step{Name: s.Name, Request: s.Request, Repeat: s.Repeat, Think: time.Duration(s.Think),
		Captures: mapSlice(s.Captures, func(c wireCapture) Capture {
			return Capture{Name: c.Name, Kind: CaptureKind(c.Kind), Expr: c.Expr, Index: c.Index}
		}),
		ThinkMax: time.Duration(s.ThinkMax), Kind: plan.StepKind(s.Kind), WebSocket: fromWireWebSocket(s.WebSocket)}
}

func toWireWebSocket(w *WebSocketStep) *wireWebSocket {
	if w == nil {
		return nil
	}
	out := &wireWebSocket{Subprotocols: w.Subprotocols, Binary: w.Binary, Wait: w.Wait, Marked: w.Marked,
		SkipIf: w.SkipIf, ExitIfFailed: w.ExitIfFailed, Hold: int64(w.Hold), CloseCode: w.CloseCode,
		Items: w.Items, Max: w.Max, Steps: mapSlice(w.Steps, toWireStep)}
	if a := w.Await; a != nil {
		out.Await = &wireAwait{Regex: a.Regex, Timeout: int64(a.Timeout), Status: a.Status,
			JSON: mapSlice(a.JSON, func(m JSONMatch) wireJSONMatch {
				return wireJSONMatch{Path: m.Path, Value: toWireSplice(m.Value)}
			})}
	}
	return out
}

func fromWireWebSocket(w *wireWebSocket) *WebSocketStep {
	if w == nil {
		return nil
	}
	out := &WebSocketStep{Subprotocols: w.Subprotocols, Binary: w.Binary, Wait: w.Wait, Marked: w.Marked,
		SkipIf: w.SkipIf, ExitIfFailed: w.ExitIfFailed, Hold: time.Duration(w.Hold), CloseCode: w.CloseCode,
		Items: w.Items, Max: w.Max, Steps: mapSlice(w.Steps, fromWireStep)}
	if a := w.Await; a != nil {
		out.Await = &Await{Regex: a.Regex, Timeout: time.Duration(a.Timeout), Status: a.Status,
			JSON: mapSlice(a.JSON, func(m wireJSONMatch) JSONMatch {
				return JSONMatch{Path: m.Path, Value: fromWireSplice(m.Value)}
			})}
	}
	return out
}

func toWireData(d Data) wireData {
	return wireData{Name: d.Name, Columns: d.Columns, Rows: d.Rows, Random: d.Random}
}

func fromWireData(w wireData) Data {
	return Data{Name: w.Name, Columns: w.Columns, Rows: w.Rows, Random: w.Random}
}

func toWireUser(u UserSpan) wireUser   { return wireUser{Start: u.Start, Stop: u.Stop} }
func fromWireUser(w wireUser) UserSpan { return UserSpan{Start: w.Start, Stop: w.Stop} }

func toWireThresholds(t results.Thresholds) wireThresholds {
	return wireThresholds{ErrorRate: t.ErrorRate, ErrorCount: t.ErrorCount, StatusCodes: t.StatusCodes,
		P50: int64(t.P50), P90: int64(t.P90), P95: int64(t.P95), P99: int64(t.P99), P999: int64(t.P999), Abort: t.Abort,
		AllowAllFailed: t.AllowAllFailed, Max: int64(t.Max), LiveWindow: int64(t.LiveWindow), LiveDelay: int64(t.LiveDelay),
		LiveMinCount: t.LiveMinCount, CheckRate: t.CheckRate}
}

func fromWireThresholds(w wireThresholds) results.Thresholds {
	return results.Thresholds{ErrorRate: w.ErrorRate, ErrorCount: w.ErrorCount, StatusCodes: w.StatusCodes,
		P50: time.Duration(w.P50), P90: time.Duration(w.P90), P95: time.Duration(w.P95), P99: time.Duration(w.P99),
		P999: time.Duration(w.P999), Max: time.Duration(w.Max), LiveWindow: time.Duration(w.LiveWindow),
		LiveDelay: time.Duration(w.LiveDelay), LiveMinCount: w.LiveMinCount, Abort: w.Abort, AllowAllFailed: w.AllowAllFailed,
		CheckRate: w.CheckRate}
}
