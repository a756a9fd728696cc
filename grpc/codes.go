// Package grpc holds the wire rules of gRPC over HTTP/2 that tressi needs
// beside its HTTP/2 client (package h2): the length-prefixed message frame,
// status codes and how HTTP statuses, RST_STREAM and GOAWAY map to them (as
// grpc-go maps them), the grpc-timeout header and grpc-message's
// percent-encoding. It speaks no HTTP/2 itself: the event loop does.
package grpc

import "strconv"

// Code is a gRPC status code, 0–16.
type Code uint32

// The status codes of grpc/grpc doc/statuscodes.md.
const (
	OK                 Code = 0
	Canceled           Code = 1
	Unknown            Code = 2
	InvalidArgument    Code = 3
	DeadlineExceeded   Code = 4
	NotFound           Code = 5
	AlreadyExists      Code = 6
	PermissionDenied   Code = 7
	ResourceExhausted  Code = 8
	FailedPrecondition Code = 9
	Aborted            Code = 10
	OutOfRange         Code = 11
	Unimplemented      Code = 12
	Internal           Code = 13
	Unavailable        Code = 14
	DataLoss           Code = 15
	Unauthenticated    Code = 16
)

// MaxCode is the largest code gRPC defines.
const MaxCode = Unauthenticated

var codeNames = [...]string{
	"OK", "CANCELLED", "UNKNOWN", "INVALID_ARGUMENT", "DEADLINE_EXCEEDED", "NOT_FOUND",
	"ALREADY_EXISTS", "PERMISSION_DENIED", "RESOURCE_EXHAUSTED", "FAILED_PRECONDITION",
	"ABORTED", "OUT_OF_RANGE", "UNIMPLEMENTED", "INTERNAL", "UNAVAILABLE", "DATA_LOSS",
	"UNAUTHENTICATED",
}

// String is the code's name as the gRPC specification spells it
// ("DEADLINE_EXCEEDED"), or "CODE(n)" for a code gRPC does not define.
func (c Code) String() string {
	if c <= MaxCode {
		return codeNames[c]
	}
	return "CODE(" + strconv.FormatUint(uint64(c), 10) + ")"
}

// ParseCode reads a code by its name or its number ("NOT_FOUND", "5").
func ParseCode(s string) (Code, bool) {
	for i, n := range codeNames {
		if n == s {
			return Code(i), true
		}
	}
	n, err := strconv.ParseUint(s, 10, 32)
	if err != nil || n > uint64(MaxCode) {
		return 0, false
	}
	return Code(n), true
}

// ParseStatus reads a grpc-status value. A value that is not a number
// is Unknown, as grpc-go reads it; a number beyond MaxCode stays as it is.
func ParseStatus(v []byte) Code {
	if len(v) == 0 || len(v) > 10 {
		return Unknown
	}
	var n uint64
	for _, c := range v {
		if c < '0' || c > '9' {
			return Unknown
		}
		n = n*10 + uint64(c-'0')
	}
	if n > 1<<32-1 {
		return Unknown
	}
	return Code(n)
}

// FromHTTPStatus is the code of a response whose HTTP status is not 200
// and that carries no grpc-status (a proxy's answer), as grpc-go's
// HTTPStatusConvTab maps it.
func FromHTTPStatus(status int) Code {
	switch status {
	case 400:
		return Internal
	case 401:
		return Unauthenticated
	case 403:
		return PermissionDenied
	case 404:
		return Unimplemented
	case 429, 502, 503, 504:
		return Unavailable
	}
	return Unknown
}

// HTTP/2 error codes of RST_STREAM and GOAWAY (RFC 9113 §7).
const (
	h2NoError            = 0x0
	h2FlowControl        = 0x3
	h2RefusedStream      = 0x7
	h2Cancel             = 0x8
	h2EnhanceYourCalm    = 0xb
	h2InadequateSecurity = 0xc
)

// FromResetCode is the code of a stream the server reset with an HTTP/2
// error code, as grpc-go's http2ErrConvTab maps it.
func FromResetCode(h2code uint32) Code {
	switch h2code {
	case h2FlowControl, h2EnhanceYourCalm:
		return ResourceExhausted
	case h2RefusedStream:
		return Unavailable
	case h2Cancel:
		return Canceled
	case h2InadequateSecurity:
		return PermissionDenied
	}
	return Internal
}

// FromGoAway is the code of a call a GOAWAY cut off (the stream above the
// frame's last stream id, or any open one when the connection then
// closes): Unavailable, as grpc-go drains such streams, so a client may
// try again elsewhere.
func FromGoAway() Code { return Unavailable }
