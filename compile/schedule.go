// Package compile turns a validated plan into a flat, reproducible schedule:
// when every request (or session) starts, and the pre-rendered bytes it sends.
// Everything the executor would otherwise decide per request (selection,
// pacing, templating, randomness) is decided here, as pure functions of the
// plan and its seed.
package compile

import (
	"slices"
	"time"

	"github.com/tressi/tressi/plan"
	"github.com/tressi/tressi/results"
)

// Model is the load model of a schedule.
type Model uint8

// Load models.
const (
	Open   Model = iota + 1 // slots due at precomputed instants
	Closed                  // users send back to back between their start and stop
)

func (m Model) String() string {
	switch m {
	case Open:
		return plan.ModelOpen
	case Closed:
		return plan.ModelClosed
	}
	return "unknown"
}

// Schedule is a compiled plan. The open model's slots are not held in it:
// Slots streams them in chunks, so memory stays flat however long the run.
type Schedule struct {
	Name  string
	Model Model
	Seed  uint64
	// Selection is how slots pick entries: plan.SelectWeighted,
	// plan.SelectRoundRobin or plan.SelectRandom; see Pick.
	Selection string
	// Arrival is the open model's spacing: plan.ArrivalUniform or
	// plan.ArrivalPoisson; empty for the closed model.
	Arrival  string
	Duration time.Duration // sum of the stages
	// Count is the open model's number of slots; 0 for the closed model,
	// whose number of requests is decided by the server's speed.
	Count int64

	Targets  []Target
	Requests []Request // the request table; steps refer to it by index
	Entries  []Entry   // what a slot starts: an endpoint or a scenario
	Data     []Data

	// Closed model: each user's active span, sorted by start.
	Users []UserSpan
	Think time.Duration

	Thresholds results.Thresholds

	// Hash is the hex sha256 over the canonical schedule: everything that
	// decides what is sent and when, nothing else.
	Hash string

	// Secrets are the plan's sensitive texts: the executor cuts them out of
	// the responses it samples. Never written to a .tplan.
	Secrets plan.Secrets

	gen   generator
	sel   *selector
	stats *scanStats // per-entry counts and timeline, from the hashing pass
}

// generator streams the open model's slots; see arrival.go.
type generator interface {
	open() SlotSource
}

// Slots streams the open model's slots in due order. Each call starts a
// new, independent stream from slot 0; a schedule built by hand without
// slots streams none.
func (s *Schedule) Slots() SlotSource {
	if s.gen == nil {
		return noSlots{}
	}
	return s.gen.open()
}

// SlotSource yields slots in due order. Next fills dst and returns how many
// it wrote; 0 means the schedule is exhausted, or, for a source that reads
// a file, that reading failed: StreamErr tells which.
type SlotSource interface {
	Next(dst []Slot) int
}

// StreamErr is the error that ended src early, nil when src was exhausted.
func StreamErr(src SlotSource) error {
	if e, ok := src.(interface{ Err() error }); ok {
		return e.Err()
	}
	return nil
}

// Slot is one scheduled start packed in 8 bytes: the due offset in ns from
// run start (high 48 bits, enough for 78 hours) and the entry index (low 16
// bits). Slots are numbered by their position in the stream.
type Slot uint64

// MaxDue is the largest due offset a Slot can hold.
const MaxDue = 1<<48 - 1

// MaxEntries is the most entries a schedule can select between.
const MaxEntries = 1 << 16

// MakeSlot packs a due offset and an entry index.
func MakeSlot(due int64, entry int) Slot { return Slot(uint64(due)<<16 | uint64(entry)) }

// Due is the slot's due offset in ns after run start.
func (s Slot) Due() int64 { return int64(uint64(s) >> 16) }

// Entry is the index of the entry the slot starts.
func (s Slot) Entry() int { return int(uint16(s)) }

// UserSpan is when a closed-model user is active, in ns after run start.
type UserSpan struct {
	Start, Stop int64
}

// Target is a resolved target.
type Target struct {
	Name        string
	Scheme      string // http or https
	Addr        string // host:port to dial
	Host        string // Host header
	Connections int
	Connection  string // ConnectionPool or ConnectionSession
	// SourceAddresses are local IPs connections are spread over; empty: any.
	SourceAddresses    []string `json:",omitempty"`
	Timeout            time.Duration
	ConnectTimeout     time.Duration
	InsecureSkipVerify bool
	Protocol           string    `json:",omitempty"` // plan.ProtocolH2, H2C or Auto; "" is HTTP/1.1
	MaxStreams         int       `json:",omitempty"` // HTTP/2 streams per connection; 0: the server's limit, capped
	TLS                TargetTLS `json:",omitzero"`
	// GRPC is set for a gRPC target: its calls' status is their gRPC code.
	GRPC *TargetGRPC `json:",omitempty"`
}

// What a target speaks (Target.Protocol): the plan's words, "" for
// HTTP/1.1, so an HTTP/1.1 schedule reads as it did before protocols.
const (
	ProtocolH2   = plan.ProtocolH2
	ProtocolH2C  = plan.ProtocolH2C
	ProtocolAuto = plan.ProtocolAuto
)

// TargetTLS is the rest of an https target's tls block (see plan.TLS): the
// files are named by absolute path and read when the run starts.
type TargetTLS struct {
	CAFile       string `json:",omitempty"`
	CertFile     string `json:",omitempty"`
	KeyFile      string `json:",omitempty"`
	ServerName   string `json:",omitempty"`
	MinVersion   string `json:",omitempty"` // "1.2" or "1.3"
	MaxVersion   string `json:",omitempty"`
	NoResumption bool   `json:",omitempty"`
}

// Entry is a unit of selection: one endpoint, or one scenario whose slot
// starts a session.
type Entry struct {
	Name       string
	Weight     int
	Scenario   bool
	Steps      []Step // an endpoint has exactly one step
	MaxRate    float64
	Data       int    // index into Schedule.Data feeding row.*, -1 for none
	Connection string // effective connection mode of its sessions
	Think      time.Duration
	// WebSocket: the scenario is a WebSocket session (a step connects; only HTTP steps come before it).
	WebSocket bool `json:",omitempty"`
	// Cookies is the plan's choice of where the entry's cookies are kept:
	// CookiesOff, CookiesShared, or "" for its kind's default, so schedules
	// from before cookies hash and replay as they compile now (see Jar).
	Cookies string `json:",omitempty"`
}

// Where an entry's cookies are kept (Entry.Jar).
const (
	CookiesSession = plan.CookiesSession // a jar per session
	CookiesShared  = plan.CookiesShared  // one jar for the run
	CookiesOff     = plan.CookiesOff     // none: Set-Cookie is ignored
)

// Step is one request of an entry, maybe repeated, with what it captures,
// or one WebSocket step (Kind other than plan.StepHTTP).
type Step struct {
	Name     string // result endpoint name: the endpoint's, or "scenario.step"
	Request  int    // index into Schedule.Requests
	Repeat   int
	Think    time.Duration
	Captures []Capture
	// ThinkMax > Think: each pause is uniform in [Think, ThinkMax], drawn
	// from (seed, slot, step, repeat); see Schedule.Pause.
	ThinkMax  time.Duration  `json:",omitempty"`
	Kind      plan.StepKind  `json:",omitempty"`
	WebSocket *WebSocketStep `json:",omitempty"`
}

// Capture extracts a value from a response into the session's capture slot Index.
type Capture struct {
	Name  string
	Kind  CaptureKind
	Expr  string
	Index int
}

// Request is one entry of the request table. A static request (no holes)
// renders to the same bytes for every slot.
type Request struct {
	Name    string // result endpoint name
	Target  int    // index into Schedule.Targets
	Method  string
	URI     Splice // path and query, with the target's base path
	Headers []HeaderSplice
	Body    Splice
	Expect  []int // empty: 200–399; a gRPC call's are gRPC codes
	Static  bool
	// GRPC is set for a call to a gRPC target.
	GRPC *GRPCCall `json:",omitempty"`
	// Digest answers the server's Digest challenge (RFC 7616) with these
	// credentials; nil: none.
	Digest *DigestAuth `json:",omitempty"`
	// Redirects is how many 3xx hops the request follows (RFC 9110
	// §15.4): its row covers the chain to the last answer; 0: none.
	Redirects int `json:",omitempty"`
	// Checks test every response (check blocks, in the plan's order); a
	// failed one makes the row check_failed.
	Checks []Check `json:",omitempty"`
}

// Check is a request's check block as the engines run it (see plan.Check).
type Check struct {
	Name    string
	Subject plan.CheckSubject
	Path    string // the JSON path or the header name
	Op      plan.CheckOp
	Value   string
	Exists  bool
	// MinSize and MaxSize bound the body's size (CheckSize); -1: unset.
	MinSize, MaxSize int64
}

// DigestAuth are a request's digest_auth credentials.
type DigestAuth struct {
	Username, Password string
}

// HeaderSplice is a header whose value may have holes.
type HeaderSplice struct {
	Name  string
	Value Splice
}

// Data is a CSV feeder's rows and how sessions take them.
type Data struct {
	Name    string
	Columns []string
	Rows    [][]string
	Random  bool
}

// Row returns the data row for session slot of an entry: sequential order
// takes rows in turn, random order derives the row from (seed, slot).
func (s *Schedule) Row(entry int, slot uint64) []string {
	e := &s.Entries[entry]
	if e.Data < 0 {
		return nil
	}
	d := &s.Data[e.Data]
	if len(d.Rows) == 0 {
		return nil
	}
	n := uint64(len(d.Rows))
	if d.Random {
		return d.Rows[mix(s.Seed, slot, 0x726f77)%n]
	}
	return d.Rows[slot%n]
}

// The connection policies of a target or a scenario's sessions.
const (
	ConnectionPool    = plan.ConnectionPool    // requests share the target's connections
	ConnectionSession = plan.ConnectionSession // each session dials its own and closes it at its end
)

// CaptureKind says where a captured value comes from; the values are those
// .tplan files hold.
type CaptureKind uint8

// Capture kinds.
const (
	CaptureJSON   = CaptureKind(plan.CaptureJSON)   // json("a.b[0].c") on the response body
	CaptureHeader = CaptureKind(plan.CaptureHeader) // header("X-Token")
	CaptureRegex  = CaptureKind(plan.CaptureRegex)  // regex("token=(\\w+)"): first group, or whole match
	CaptureCookie = CaptureKind(plan.CaptureCookie) // cookie("sid"): the session's jar after the response
)

// CaptureSlots lists the session capture slots the request's holes read.
func (rq *Request) CaptureSlots() []int {
	var used []int
	add := func(sp *Splice) {
		for _, h := range sp.Holes {
			if h.Kind == plan.HoleCaptured && h.Index >= 0 && !slices.Contains(used, h.Index) {
				used = append(used, h.Index)
			}
		}
	}
	add(&rq.URI)
	for i := range rq.Headers {
		add(&rq.Headers[i].Value)
	}
	add(&rq.Body)
	return used
}

// Thresholds is the plan's thresholds block as the results judge a run.
func Thresholds(t *plan.Thresholds) results.Thresholds {
	return results.Thresholds{ErrorRate: t.ErrorRate, ErrorCount: t.ErrorCount, StatusCodes: t.StatusCodes,
		P50: t.P50, P90: t.P90, P95: t.P95, P99: t.P99, P999: t.P999, Max: t.Max,
		LiveWindow: t.LiveWindow, LiveDelay: t.LiveDelay, LiveMinCount: t.LiveMinCount,
		Abort: t.Abort, AllowAllFailed: t.AllowAllFailed, CheckRate: t.CheckRate}
}
