// Package plan loads tressi plans written in HCL (native or JSON syntax) into
// typed, validated values that keep their source ranges, so the compiler can
// still point at the line a problem came from.
package plan

import (
	"net/url"
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"
)

// Plan is a whole validated plan: every block of every file it was loaded from.
type Plan struct {
	// Name identifies the plan in run directories and reports: the base name
	// of the file or directory it was loaded from, without extension.
	Name string
	// Sources holds every file the plan was read from (plan files, CSV data,
	// file() arguments), keyed by the path as given, so a .tplan can carry them.
	Sources map[string][]byte
	// Path is the plan file or directory it was loaded from, as given.
	Path string

	Variables  []*Variable
	Targets    []*Target
	Endpoints  []*Endpoint
	Scenarios  []*Scenario
	Data       []*Data
	Load       *LoadProfile
	Thresholds *Thresholds

	// Secrets are the texts of the sensitive variables' values, to cut out
	// of anything shown or stored (see Secrets).
	Secrets Secrets
	// Descriptors are the gRPC targets' schemas by target name, each a
	// serialized FileDescriptorSet: what a .tplan embeds, and what a
	// replay hands back in Options.Descriptors so it needs neither the
	// .proto files nor the server's reflection service.
	Descriptors map[string][]byte
	// MaxSlots is the most requests the compiled schedule may start, set
	// by the caller (tressi's --max-slots); 0: compile.DefaultMaxSlots.
	MaxSlots int64
}

// MaxFileBytes bounds a file read by file() (a request body, in the end):
// a larger one is refused before it is read.
const MaxFileBytes = 64 << 20

// Variable is a declared input variable with its resolved value.
type Variable struct {
	Name      string
	Type      cty.Type
	Default   cty.Value
	Sensitive bool
	// Value is the resolved value after defaults, files, environment and -var.
	// It is not marked: check Sensitive before printing or recording it.
	Value     cty.Value
	DeclRange hcl.Range
}

// Connection modes of a target.
const (
	ConnectionPool    = "pool"    // keep-alive pool shared by all requests
	ConnectionSession = "session" // each scenario session opens and closes its own connection
)

// Target is a server the plan sends requests to.
type Target struct {
	Name string
	// URL is absolute, scheme http, https, ws or wss; its path is a prefix
	// for every request path sent to this target. HTTP steps use http for ws
	// and https for wss; WebSocket connects use ws for http, wss for https.
	URL            *url.URL
	Connections    int    // max open connections; default 64
	Connection     string // ConnectionPool (default) or ConnectionSession
	Timeout        time.Duration
	ConnectTimeout time.Duration
	// ExpectedLatency is how long the user expects a response to take
	// (0: unstated). It sends nothing and is not part of the schedule: it
	// lets the plan warn when connections cannot carry the rate.
	ExpectedLatency    time.Duration
	Headers            []Header // sent with every request to this target
	InsecureSkipVerify bool
	Protocol           string // ProtocolHTTP1 (default), ProtocolH2, ProtocolH2C, ProtocolAuto or ProtocolGRPC
	MaxStreams         int    // HTTP/2 streams per connection at most (fewer if the server says so); 0 over HTTP/1.1
	TLS                TLS    // the rest of the tls block; zero when there is none
	// SourceAddresses are local addresses connections are spread over
	// (round robin), each with its own ephemeral ports; empty: the kernel picks.
	SourceAddresses []string
	// GRPC is a gRPC target's proto block and schema (Protocol is
	// ProtocolGRPC); nil for other targets.
	GRPC *GRPCTarget
	// Resolve maps lower-cased host names to the IP addresses connected to
	// instead of what DNS says (curl's --resolve); Host and TLS's server
	// name stay the name. Nil when the target has no resolve.
	Resolve map[string]string
	// DigestAuth answers servers' Digest challenges (RFC 7616) for every
	// request to this target that does not set its own; nil: none.
	DigestAuth *Credentials
	// Redirects is how many 3xx hops a request to this target follows
	// unless it sets its own; 0: none.
	Redirects int
	DeclRange hcl.Range
}

// The protocols a target speaks.
const (
	ProtocolHTTP1 = "http1" // HTTP/1.1
	ProtocolH2    = "h2"    // HTTP/2 over TLS, chosen by ALPN
	ProtocolH2C   = "h2c"   // cleartext HTTP/2 with prior knowledge
	ProtocolAuto  = "auto"  // over TLS, ALPN chooses h2 or HTTP/1.1; over http, HTTP/1.1
)

// InFlight is how many requests t carries at once: one per connection over
// HTTP/1.1; over HTTP/2 (or "auto", which may get it) max_streams per
// connection, or the default cap of what a server allows.
func (t *Target) InFlight() int {
	if t.Protocol == "" || t.Protocol == ProtocolHTTP1 {
		return t.Connections
	}
	return t.Connections * max(t.MaxStreams, 1)
}

// DefaultMaxStreams is the most streams tressi opens on one HTTP/2
// connection when max_streams is unset (and the server allows more).
const DefaultMaxStreams = 100

// MaxStreamsLimit caps max_streams: more streams per connection than this
// only hide a server's queue behind one socket.
const MaxStreamsLimit = 1000

// TLS is how an https target is trusted and how tressi proves who it is.
// File paths are resolved against the plan's directory; the files are read
// from the operating system's file system when the plan is checked and
// again when it runs (a private key never joins the plan's sources).
type TLS struct {
	CAFile     string // PEM certificates trusted instead of the system roots
	CertFile   string // client certificate chain (PEM), with KeyFile
	KeyFile    string // its private key (PEM)
	ServerName string // SNI and the name verified; default: the URL's host
	MinVersion string // "1.2" or "1.3"; default 1.2
	MaxVersion string // "1.2" or "1.3"; default 1.3
	// NoResumption turns session resumption off: every connection pays a
	// full handshake.
	NoResumption bool
	DeclRange    hcl.Range
}

// TLS versions a plan may name.
var TLSVersions = []string{"1.2", "1.3"}

// Default target settings.
const (
	DefaultConnections    = 64
	DefaultTimeout        = 5 * time.Second
	DefaultConnectTimeout = 2 * time.Second
)

// Header is one request header; its value may hold per-request holes.
type Header struct {
	Name  string
	Value Template
}

// Request is what an endpoint or a scenario step sends.
type Request struct {
	Target  string // target name, resolved even when the plan omitted it
	Method  string // upper case; default GET, or POST when a body is set
	Path    Template
	Headers []Header
	Body    Template
	// DigestAuth answers the server's Digest challenge; nil: the target's.
	DigestAuth *Credentials
	// Redirects is how many 3xx hops the request follows;
	// RedirectsUnset: the target's.
	Redirects int
	// Expect lists the statuses that count as ok; empty means 200–399
	// (for a gRPC call: gRPC codes, empty means OK only).
	Expect []int
	// GRPC is the call a request to a gRPC target makes; nil otherwise.
	GRPC *GRPCRequest
	// Checks test the response (check blocks), in the plan's order.
	Checks    []Check
	DeclRange hcl.Range
}

// Endpoint is a single weighted request.
type Endpoint struct {
	Name    string
	Weight  int
	MaxRate float64 // requests per second; 0 means no cap
	// Data is the data block feeding row.* when the endpoint uses it: an
	// endpoint may only when the plan has exactly one data block.
	Data string
	// Cookies is CookiesShared, or "" for none (CookiesOff).
	Cookies string
	Request
	DeclRange hcl.Range
}

// Scenario is a weighted multi-step user journey; the load starts sessions of it.
type Scenario struct {
	Name   string
	Weight int
	Think  time.Duration // pause after each step, unless the step sets its own
	Data   string        // data block feeding row.*; "" when none is used
	Steps  []*Step
	// Connection overrides the target's connection mode for this scenario's
	// sessions when not empty.
	Connection string
	// Cookies is CookiesOff or CookiesShared, or "" for the default,
	// CookiesSession: a jar per session (WebSocket sessions keep none).
	Cookies   string
	DeclRange hcl.Range
}

// Step is one request of a scenario, possibly repeated, or one WebSocket
// step (see StepKind).
type Step struct {
	Name string
	Kind StepKind
	Request
	WebSocket *WebSocket // set for every kind but StepHTTP and the Call kinds
	Call      *CallStep  // set for the steps naming a gRPC stream (StepCallSend and after)
	Captures  []Capture
	Repeat    int           // times the request is sent; default 1
	Think     time.Duration // pause after each send; -1 means "use the scenario's"
	// ThinkMax, when > Think, makes each pause uniform in [Think, ThinkMax],
	// drawn from (seed, slot, step, repeat) so replays pause alike.
	ThinkMax  time.Duration
	DeclRange hcl.Range
}

// CaptureKind says where a captured value comes from.
type CaptureKind uint8

// Capture kinds.
const (
	CaptureJSON   CaptureKind = iota + 1 // json("a.b[0].c") on the response body
	CaptureHeader                        // header("X-Token")
	CaptureRegex                         // regex("token=(\\w+)"): first group, or whole match
	CaptureCookie                        // cookie("sid"): the session's cookie jar after the response
)

// Capture extracts a named value from a step's response for later steps.
type Capture struct {
	Name      string
	Kind      CaptureKind
	Expr      string
	DeclRange hcl.Range
}

// Data is a CSV feeder: rows handed to sessions at compile time.
type Data struct {
	Name      string
	CSV       string // path as written, relative to the plan file's directory
	Order     string // DataSequential (default) or DataRandom
	Columns   []string
	Rows      [][]string
	DeclRange hcl.Range
}

// Data orders.
const (
	DataSequential = "sequential"
	DataRandom     = "random"
)

// Load models, selections and arrivals.
const (
	ModelOpen   = "open"
	ModelClosed = "closed"

	SelectWeighted   = "weighted"
	SelectRoundRobin = "round_robin"
	SelectRandom     = "random"

	ArrivalUniform = "uniform"
	ArrivalPoisson = "poisson"
)

// LoadProfile is the load block: how much traffic to start and when. (It is
// not named Load because plan.Load is the function that loads a plan.)
type LoadProfile struct {
	Model     string        // ModelOpen (default) or ModelClosed
	Selection string        // SelectWeighted (default), SelectRoundRobin or SelectRandom
	Arrival   string        // ArrivalUniform (default) or ArrivalPoisson; open model only
	Seed      uint64        // default 1
	Think     time.Duration // closed model: pause between a user's iterations
	Stages    []Stage
	// Search, when set, replaces the stages: tressi apply runs probes at
	// constant values until it finds the highest one the thresholds pass.
	Search    *Search
	DeclRange hcl.Range
}

// Stage is one period of the load. Open model: From/To are arrivals per
// second; closed model: concurrent users. To equals From when not ramping.
type Stage struct {
	Duration  time.Duration
	From      float64
	To        float64
	DeclRange hcl.Range
}

// Thresholds stop a run early (live) and decide pass/fail (at the end).
type Thresholds struct {
	ErrorRate   float64 // abort when the windowed error rate exceeds this; 0: unset
	ErrorCount  int64   // abort when errors exceed this; 0: unset
	StatusCodes []int   // abort on the first of these
	// Latency limits on corrected latency, checked at the end; 0: unset.
	P50, P90, P95, P99, P999 time.Duration
	Max                      time.Duration // the largest corrected latency; 0: unset
	// LiveWindow, when set, also judges the latency limits live, over the
	// responses of the last LiveWindow, once LiveDelay passed and the
	// window holds LiveMinCount responses.
	LiveWindow, LiveDelay time.Duration
	LiveMinCount          int64
	Abort                 bool // default true: stop early when a live threshold fails
	// AllowAllFailed accepts a run in which no request succeeded (a plan
	// that probes a service expected to be down); by default such a run
	// fails, with or without thresholds.
	AllowAllFailed bool
	// CheckRate is the least fraction of checks that must hold; 0: unset.
	CheckRate float64
	DeclRange hcl.Range
}
