package run

import (
	"errors"

	"github.com/tressi/tressi/compile"
	"github.com/tressi/tressi/grpc"
	"github.com/tressi/tressi/h2"
	"github.com/tressi/tressi/results"
)

// appendGRPCMessage appends a gRPC message that varies per request,
// length-prefixed: the prefix's room is reserved, the message encoded
// after it, then its length written in.
func appendGRPCMessage(dst []byte, m *compile.MessageTemplate, v *compile.Values) []byte {
	at := len(dst)
	dst = append(dst, 0, 0, 0, 0, 0)
	dst = m.Append(dst, v)
	grpc.PutPrefix(dst[at:], len(dst)-at-grpc.PrefixLen, false)
	return dst
}

// grpcFailure is the code of a gRPC call that got no answer, as grpc-go's
// client reports such a call: the server's RST_STREAM by grpc-go's table,
// tressi's timeout as DEADLINE_EXCEEDED, a stream or connection the server
// never processed or lost as UNAVAILABLE. OK (0) where there is no code:
// a capture that failed, this machine's resources, a stop.
func grpcFailure(kind results.ErrorKind, err error) uint16 {
	var se *h2.StreamError
	if errors.As(err, &se) {
		return uint16(grpc.FromResetCode(uint32(se.Code)))
	}
	switch kind {
	case results.Timeout:
		return uint16(grpc.DeadlineExceeded)
	case results.Unprocessed:
		return uint16(grpc.FromGoAway())
	case results.ConnectRefused, results.ConnectTimeout, results.Reset, results.DNS, results.TLS:
		return uint16(grpc.Unavailable)
	case results.Protocol:
		return uint16(grpc.Internal)
	case results.BodyTooLarge:
		return uint16(grpc.ResourceExhausted)
	}
	return 0
}
