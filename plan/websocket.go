package plan

import "time"

// StepKind says what a scenario step does. HTTP steps send a request; the
// others make up WebSocket scenarios, which connect in one step (HTTP steps may come before it).
type StepKind uint8

// Step kinds.
const (
	StepHTTP    StepKind = iota // a request: path, method, headers, body
	StepConnect                 // connect = "/path?query": the WebSocket upgrade
	StepSend                    // send = "...": one frame per repeat, maybe awaited
	StepThink                   // only think = "...": a pause
	StepHold                    // hold = "60s": stay connected and idle, answering pings
	StepClose                   // close = 1000: the close handshake
	StepForEach                 // for_each = captured.x, max = N: nested steps per element
	// gRPC streaming calls (grpcstream.go): a step opens the call, later
	// steps name it with stream = "STEP".
	StepCallOpen      // rpc = a streaming method: the call's headers (and a server stream's one message)
	StepCallSend      // message = {...}: one message per repeat, its reply maybe awaited
	StepCallReceive   // await {...} alone: one reply per repeat
	StepCallHalfClose // half_close = true: END_STREAM
	StepCallCancel    // cancel = true: RST_STREAM(CANCEL)
	StepCallFinish    // finish = true: the call's end and its gRPC code
)

func (k StepKind) String() string {
	return [...]string{"http", "connect", "send", "think", "hold", "close", "for_each",
		"open", "message", "receive", "half_close", "cancel", "finish"}[k]
}

// Rows reports whether a step of this kind records one row per execution:
// the connect (the upgrade), every frame sent and the close do; of a
// gRPC stream, every message sent, every reply received, the cancel and
// the finish.
func (k StepKind) Rows() bool {
	switch k {
	case StepHTTP, StepConnect, StepSend, StepClose, StepCallSend, StepCallReceive, StepCallCancel, StepCallFinish:
		return true
	}
	return false
}

// Call reports whether a step of this kind works on a gRPC streaming call.
func (k StepKind) Call() bool { return k >= StepCallOpen }

// WebSocket is what a WebSocket step holds beyond Step's own fields.
type WebSocket struct {
	// Connect: Request.Path and Request.Headers are the upgrade request's.
	Subprotocols []string

	// Send: Request.Body is the frame's payload.
	Binary bool
	Await  *Await // nil: the frame counts as answered once written
	// Wait (default true) makes the next step wait for this step's await;
	// false sends on while the await stays outstanding, so several awaits
	// can be answered in any order.
	Wait bool
	// Marked is set when the payload holds the per-request value `mark`:
	// other sessions receiving a frame with it record a delivery.
	Marked bool
	// SkipIf, when set, is a regular expression tried on each rendered
	// frame: a frame it matches is not sent, and its row is `skipped`
	// (Tinode's script publishes to every subscription but a channel's).
	SkipIf string
	// ExitIfFailed ends the session when this step's answer fails (an
	// error, or a status outside expect), as Gatling's exitHereIfFailed:
	// the rows it would still have recorded are `skipped`.
	ExitIfFailed bool

	Hold      time.Duration // StepHold
	CloseCode int           // StepClose; 0 sends a close frame without a code

	// ForEach: Items is the capture holding a JSON array; Max bounds the
	// iterations (those beyond the array's length are recorded as `no_item`);
	// Steps run once per element with each.value and each.index.
	Items string
	Max   int
	Steps []*Step
}

// Await is how a send's answer is recognised among incoming frames.
type Await struct {
	// JSON lists paths that must all equal their value (compared as text:
	// a string's content, a number's digits). Empty with Regex "": any data frame.
	JSON  []JSONMatch
	Regex string
	// Timeout counts from the send; default the target's timeout.
	Timeout time.Duration
	// Status, when set, is a JSON path into the matched frame whose number
	// is the row's status (Tinode: "ctrl.code"); checked against expect.
	Status string
}

// JSONMatch is one `"path" = value` of an await's json map.
type JSONMatch struct {
	Path  string
	Value Template
}
