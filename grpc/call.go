package grpc

import "strings"

// Call follows the response of one call as an HTTP/2 client hands it
// over (the status, every header and trailer field, the DATA bytes) and
// says how the call ended, as grpc-go's client would: the code of
// grpc-status; for an answer that is not gRPC (no application/grpc
// content-type: a proxy's error page) the HTTP status's code; INTERNAL
// for a call that ended without a status or inside a message, or whose
// messages break the framing; RESOURCE_EXHAUSTED for a message over the
// limit. It allocates nothing unless asked to keep the status message.
type Call struct {
	// KeepMessage keeps grpc-message's text (decoded) for Message.
	KeepMessage bool
	// Each, when set, is handed every whole message as it completes (a
	// streaming call's replies); the slice is valid during the call only.
	Each func(m []byte, compressed bool)

	http      int
	grpcType  bool // content-type application/grpc (or application/grpc+...)
	status    Code
	hasStatus bool
	message   string
	frames    Reader
	frameErr  error
	messages  int64
}

// Reset readies c for another call, keeping its buffer and KeepMessage.
func (c *Call) Reset() {
	keep := c.KeepMessage
	c.frames.Reset()
	*c = Call{KeepMessage: keep, frames: c.frames}
}

// Status is the response's HTTP status.
func (c *Call) Status(http int) { c.http = http }

// Field is one response header or trailer field (names in lower case, as
// HTTP/2 sends them).
func (c *Call) Field(name, value string) {
	switch name {
	case "content-type":
		c.grpcType = value == "application/grpc" || strings.HasPrefix(value, "application/grpc+") ||
			strings.HasPrefix(value, "application/grpc;")
	case "grpc-status":
		c.status, c.hasStatus = ParseStatus([]byte(value)), true
	case "grpc-message":
		if c.KeepMessage {
			c.message = DecodeMessage(value)
		}
	}
}

// Data is a piece of the response body: length-prefixed messages.
func (c *Call) Data(p []byte) {
	if c.frameErr != nil {
		return
	}
	c.frameErr = c.frames.Feed(p, c.count)
}

func (c *Call) count(m []byte, compressed bool) {
	c.messages++
	if c.Each != nil {
		c.Each(m, compressed)
	}
}

// Messages is how many whole response messages arrived.
func (c *Call) Messages() int64 { return c.messages }

// Message is grpc-message's text, when KeepMessage was set.
func (c *Call) Message() string { return c.message }

// End is the call's code once the server ended the stream.
func (c *Call) End() Code {
	switch {
	case !c.grpcType:
		if c.http == 200 || c.http == 0 {
			return Unknown // grpc-go: a 200 that is not gRPC says nothing
		}
		return FromHTTPStatus(c.http)
	case c.frameErr != nil:
		if _, tooLarge := c.frameErr.(*TooLargeError); tooLarge {
			return ResourceExhausted
		}
		return Internal
	case !c.hasStatus:
		return Internal // the stream ended without a status
	case c.frames.Pending() && c.status == OK:
		return Internal // ended inside a message
	}
	return c.status
}
