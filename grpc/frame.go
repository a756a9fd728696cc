package grpc

import (
	"encoding/binary"
	"errors"
	"fmt"
)

// PrefixLen is the size of a message's prefix on the wire: a compressed
// flag and a 4-byte big-endian length (gRPC's Length-Prefixed-Message).
const PrefixLen = 5

// DefaultMaxMessage is the largest message a Reader accepts unless told
// otherwise: grpc-go's default receive limit, 4 MiB.
const DefaultMaxMessage = 4 << 20

// AppendPrefix appends the prefix of a message of n bytes.
func AppendPrefix(dst []byte, n int, compressed bool) []byte {
	var flag byte
	if compressed {
		flag = 1
	}
	return binary.BigEndian.AppendUint32(append(dst, flag), uint32(n))
}

// AppendMessage appends msg as one length-prefixed message.
func AppendMessage(dst, msg []byte, compressed bool) []byte {
	return append(AppendPrefix(dst, len(msg), compressed), msg...)
}

// PutPrefix writes the prefix of a message of n bytes into p[:PrefixLen],
// for a caller that reserved the room before encoding the message after it.
func PutPrefix(p []byte, n int, compressed bool) {
	p[0] = 0
	if compressed {
		p[0] = 1
	}
	binary.BigEndian.PutUint32(p[1:PrefixLen], uint32(n))
}

// Errors of a Reader. Each ends the call: the stream's bytes can no longer
// be cut into messages.
var (
	ErrFlag = errors.New("grpc: message prefix has a compressed flag other than 0 or 1")
)

// TooLargeError is a message longer than the Reader's limit.
type TooLargeError struct{ Len, Max uint32 }

func (e *TooLargeError) Error() string {
	return fmt.Sprintf("grpc: message of %d bytes is larger than the %d allowed", e.Len, e.Max)
}

// Reader cuts a stream's DATA bytes, fed in pieces of any size, into
// messages. It keeps at most one message's bytes, and only while a message
// straddles pieces; a message whole inside a piece is handed over without
// a copy.
type Reader struct {
	// Max is the largest message accepted; 0 means DefaultMaxMessage.
	Max uint32

	prefix  [PrefixLen]byte
	have    int // prefix bytes read of the current message
	need    int // body bytes still to come once the prefix is whole
	flag    byte
	partial []byte
	err     error
}

// Feed reads p and calls msg for every message it completes, in order; the
// slice is valid during the call only. It returns the first error, and
// every later call returns it too.
func (r *Reader) Feed(p []byte, msg func(m []byte, compressed bool)) error {
	for len(p) > 0 && r.err == nil {
		if r.have < PrefixLen {
			n := copy(r.prefix[r.have:], p)
			r.have += n
			p = p[n:]
			if r.have < PrefixLen {
				return nil
			}
			if r.err = r.startMessage(); r.err != nil {
				return r.err
			}
			if r.need == 0 {
				r.finish(nil, msg)
				continue
			}
		}
		if len(r.partial) == 0 && len(p) >= r.need {
			body := p[:r.need]
			p = p[r.need:]
			r.finish(body, msg)
			continue
		}
		n := min(r.need, len(p))
		r.partial = append(r.partial, p[:n]...)
		r.need -= n
		p = p[n:]
		if r.need == 0 {
			r.finish(r.partial, msg)
			r.partial = r.partial[:0]
		}
	}
	return r.err
}

func (r *Reader) startMessage() error {
	r.flag = r.prefix[0]
	if r.flag > 1 {
		return ErrFlag
	}
	n := binary.BigEndian.Uint32(r.prefix[1:])
	limit := r.Max
	if limit == 0 {
		limit = DefaultMaxMessage
	}
	if n > limit {
		return &TooLargeError{Len: n, Max: limit}
	}
	r.need = int(n)
	return nil
}

func (r *Reader) finish(body []byte, msg func([]byte, bool)) {
	r.have, r.need = 0, 0
	msg(body, r.flag == 1)
}

// Pending says a message has begun and not ended: a stream that ends now
// ended inside a message (grpc-go's "unexpected EOF", code Internal).
func (r *Reader) Pending() bool { return r.err == nil && (r.have > 0 || r.need > 0) }

// Reset makes r ready for another stream, keeping its buffer.
func (r *Reader) Reset() {
	r.have, r.need, r.flag, r.err = 0, 0, 0, nil
	r.partial = r.partial[:0]
}
