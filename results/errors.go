package results

// ErrorKind is one word of the fixed error vocabulary (docs/contracts.md), stored
// as a small integer in memory and as a dictionary string on disk.
type ErrorKind uint8

// The error vocabulary. None means a complete response arrived, whatever its status.
const (
	None ErrorKind = iota
	Timeout
	ConnectRefused
	ConnectTimeout
	Reset
	DNS
	TLS
	BodyTooLarge
	Protocol
	LocalResources
	CaptureFailed
	Interrupted
	NotSent
	// WebSocket sessions.
	AwaitTimeout // no frame matched the await before its timeout
	WSClosed     // the connection closed (close frame or EOF) before the answer
	WSProtocol   // the server broke RFC 6455 or refused the upgrade
	NoItem       // a for_each iteration beyond the captured array's length
	Unprocessed  // HTTP/2: the server did not process the stream (GOAWAY, REFUSED_STREAM)
	Skipped      // WebSocket: a send its skip_if matched, so it was not sent
	StreamEnded  // gRPC stream: the call ended (its trailers, a reset) before the reply awaited
	// Redirects (redirects = N): the chain's last answer was a redirect
	// it did not follow.
	TooManyRedirects // still redirected after N hops
	RedirectRefused  // redirected to an origin that is not a target of the plan
	CheckFailed      // a complete response failed one of its request's checks
	numErrorKinds
)

// ErrorNames is the vocabulary in ErrorKind order; it is also the error
// column's dictionary.
var ErrorNames = [numErrorKinds]string{
	None:             "",
	Timeout:          "timeout",
	ConnectRefused:   "connect_refused",
	ConnectTimeout:   "connect_timeout",
	Reset:            "reset",
	DNS:              "dns",
	TLS:              "tls",
	BodyTooLarge:     "body_too_large",
	Protocol:         "protocol",
	LocalResources:   "local_resources",
	CaptureFailed:    "capture_failed",
	Interrupted:      "interrupted",
	NotSent:          "not_sent",
	AwaitTimeout:     "await_timeout",
	WSClosed:         "ws_closed",
	WSProtocol:       "ws_protocol",
	NoItem:           "no_item",
	Unprocessed:      "unprocessed",
	Skipped:          "skipped",
	StreamEnded:      "stream_ended",
	TooManyRedirects: "too_many_redirects",
	RedirectRefused:  "redirect_refused",
	CheckFailed:      "check_failed",
}

// NotRequest reports whether rows of this kind stand for no request at all
// (a for_each iteration that did not exist, a send skip_if passed over):
// they keep a session's row count whole, but are neither requests nor
// errors in any total.
func (k ErrorKind) NotRequest() bool { return k == NoItem || k == Skipped }

func (k ErrorKind) String() string {
	if int(k) < len(ErrorNames) {
		return ErrorNames[k]
	}
	return "unknown"
}

// ParseErrorKind maps a vocabulary word back to its kind.
func ParseErrorKind(s string) (ErrorKind, bool) {
	for i, n := range ErrorNames {
		if n == s {
			return ErrorKind(i), true
		}
	}
	return 0, false
}
