package ws

import (
	"encoding/binary"
	"fmt"
	"unicode/utf8"
)

// DefaultMaxMessage is the largest message a Reader accepts when MaxMessage is 0.
const DefaultMaxMessage = 1 << 20

type readState uint8

const (
	rsHeader readState = iota
	rsPayload
	rsFailed
)

// Reader turns the bytes of one connection into messages. Feed it whatever
// the socket gave; each time it reports a message ready, Op and Payload
// describe it until the next call to Feed. The zero value is a client-side
// reader (it refuses masked frames) with a 1 MiB message limit.
//
// A frame that arrives whole in one Feed call and is a whole message is
// handed out without copying: Payload then aliases the bytes given to Feed
// (a server-side Reader unmasks them in place). Only a message split across
// Feed calls or fragments is copied into the Reader's own buffer, so an idle
// connection holds no message buffer at all once Release is called.
type Reader struct {
	// FromClient makes this a server-side reader: every frame must be masked.
	FromClient bool
	// MaxMessage bounds a reassembled data message; 0 means DefaultMaxMessage.
	MaxMessage int

	// Op is the opcode of the message ready: OpText or OpBinary for a data
	// message (its first fragment's opcode), or a control opcode.
	Op Opcode

	// What every frame reads comes first, the buffers last: a reader of
	// many connections each seldom busy finds the frame's state on one or
	// two cache lines.
	st      readState
	fin     bool
	op      Opcode // opcode of the frame being read
	masked  bool
	msgOp   Opcode // opcode of the data message being assembled; 0: none
	copied  bool   // the current frame's payload goes to msg/ctrl, not view
	ready   bool   // the previous Feed returned a message; clear its buffer first
	key     [4]byte
	hlen    int // header bytes gathered
	hneed   int // header bytes needed (2 until the length form is known)
	keyPos  int
	left    uint64 // payload bytes of the current frame still to come
	ctrlLen int
	view    []byte // payload of the ready message when it aliases Feed's input
	msg     []byte // reassembled data message (own buffer)
	err     error
	hdr     [MaxHeader]byte
	ctrl    [MaxControlPayload]byte
}

// Payload returns the ready message's payload (valid until the next Feed).
func (r *Reader) Payload() []byte {
	if r.view != nil {
		return r.view
	}
	if r.Op.IsControl() {
		return r.ctrl[:r.ctrlLen]
	}
	return r.msg
}

// CloseCode returns the status code and reason of a ready close frame
// (CloseNoStatus when it had no body).
func (r *Reader) CloseCode() (int, string) {
	p := r.Payload()
	if len(p) < 2 {
		return CloseNoStatus, ""
	}
	return int(binary.BigEndian.Uint16(p)), string(p[2:])
}

// Reset prepares the Reader for a new connection, keeping its buffer.
func (r *Reader) Reset() {
	*r = Reader{FromClient: r.FromClient, MaxMessage: r.MaxMessage, msg: r.msg[:0]}
}

// Release drops the message buffer (for idle connections); it regrows on demand.
func (r *Reader) Release() {
	if r.msgOp == 0 && r.st == rsHeader && r.hlen == 0 {
		r.msg = nil
	}
}

// Touch reads a word of each cache line Feed uses for a frame, and returns
// their sum (keep it, so the reads stay). A caller with many connections
// touches a batch of Readers ahead of feeding them, so their misses overlap
// instead of coming one after another.
func (r *Reader) Touch() uintptr {
	return uintptr(r.st) + uintptr(r.left) + uintptr(r.hdr[0])
}

// Err returns the sticky error, if any.
func (r *Reader) Err() error { return r.err }

func (r *Reader) fail(format string, args ...any) error {
	r.st = rsFailed
	r.err = fmt.Errorf("%w: "+format, append([]any{ErrProtocol}, args...)...)
	return r.err
}

// Feed consumes bytes of b and stops after the first complete message, so
// the caller handles it and calls Feed again with b[n:]. It returns how many
// bytes it consumed, whether a message is ready, and a sticky error for
// bytes that break the protocol (wrapping ErrProtocol) or a message over the
// limit (ErrTooBig).
func (r *Reader) Feed(b []byte) (n int, ready bool, err error) {
	if r.st == rsFailed {
		return 0, false, r.err
	}
	if r.ready {
		r.ready = false
		if r.view == nil && !r.Op.IsControl() {
			r.msg = r.msg[:0]
		}
		r.view = nil
		r.ctrlLen = 0
	}
	for n < len(b) || (r.st == rsPayload && r.left == 0) {
		switch r.st {
		case rsHeader:
			k, err := r.header(b[n:])
			n += k
			if err != nil {
				return n, false, err
			}
			if r.st == rsHeader {
				return n, false, nil // header still incomplete
			}
			r.beginPayload(b[n:])
		case rsPayload:
			k := r.payload(b[n:])
			n += k
			if r.left > 0 {
				return n, false, nil
			}
			done, err := r.endFrame()
			if err != nil {
				return n, false, err
			}
			r.st = rsHeader
			if done {
				r.ready = true
				return n, true, nil
			}
		}
	}
	return n, false, nil
}

// header gathers header bytes; once complete it validates the header and
// moves to rsPayload.
func (r *Reader) header(b []byte) (int, error) {
	if r.hneed == 0 {
		r.hneed = 2
	}
	n := 0
	for r.hlen < r.hneed && n < len(b) {
		r.hdr[r.hlen] = b[n]
		r.hlen++
		n++
		if r.hlen == 2 {
			r.hneed = 2 + extLen(r.hdr[1]&0x7f)
			if r.hdr[1]&0x80 != 0 {
				r.hneed += 4
			}
		}
	}
	if r.hlen < r.hneed {
		return n, nil
	}
	return n, r.parseHeader()
}

func extLen(l7 byte) int {
	switch l7 {
	case 126:
		return 2
	case 127:
		return 8
	}
	return 0
}

func (r *Reader) parseHeader() error {
	h := r.hdr[:r.hlen]
	r.hlen, r.hneed = 0, 0
	r.fin = h[0]&0x80 != 0
	if h[0]&0x70 != 0 {
		return r.fail("reserved bits set (no extension was negotiated)")
	}
	r.op = Opcode(h[0] & 0x0f)
	r.masked = h[1]&0x80 != 0
	l7 := h[1] & 0x7f
	switch l7 {
	case 126:
		r.left = uint64(binary.BigEndian.Uint16(h[2:]))
		if r.left < 126 {
			return r.fail("length %d not in its shortest form", r.left)
		}
	case 127:
		r.left = binary.BigEndian.Uint64(h[2:])
		if r.left>>63 != 0 {
			return r.fail("64-bit length with its top bit set")
		}
		if r.left <= 0xffff {
			return r.fail("length %d not in its shortest form", r.left)
		}
	default:
		r.left = uint64(l7)
	}
	if r.masked {
		copy(r.key[:], h[len(h)-4:])
	}
	r.keyPos = 0
	switch {
	case r.FromClient && !r.masked:
		return r.fail("unmasked frame from a client")
	case !r.FromClient && r.masked:
		return r.fail("masked frame from a server")
	}
	switch r.op {
	case OpClose, OpPing, OpPong:
		if !r.fin {
			return r.fail("fragmented %s frame", r.op)
		}
		if r.left > MaxControlPayload {
			return r.fail("%s frame of %d bytes (at most 125)", r.op, r.left)
		}
		if r.op == OpClose && r.left == 1 {
			return r.fail("close frame with a 1-byte body")
		}
	case OpText, OpBinary:
		if r.msgOp != 0 {
			return r.fail("new %s message before the previous one's last fragment", r.op)
		}
		r.msgOp = r.op
	case OpContinuation:
		if r.msgOp == 0 {
			return r.fail("continuation frame without a message to continue")
		}
	default:
		return r.fail("reserved opcode %#x", byte(r.op))
	}
	if !r.op.IsControl() && uint64(len(r.msg))+r.left > uint64(r.maxMessage()) {
		r.st = rsFailed
		r.err = fmt.Errorf("%w: %d bytes or more (limit %d)", ErrTooBig, uint64(len(r.msg))+r.left, r.maxMessage())
		return r.err
	}
	r.st = rsPayload
	return nil
}

func (r *Reader) maxMessage() int {
	if r.MaxMessage > 0 {
		return r.MaxMessage
	}
	return DefaultMaxMessage
}

// beginPayload decides where the payload goes: a whole, unfragmented frame
// already present in b is handed out in place; anything else is copied.
func (r *Reader) beginPayload(b []byte) {
	whole := r.fin && r.op != OpContinuation && uint64(len(b)) >= r.left
	r.copied = !whole
	if whole {
		r.view = b[:r.left:r.left]
	}
}

func (r *Reader) payload(b []byte) int {
	k := len(b)
	if uint64(k) > r.left {
		k = int(r.left)
	}
	chunk := b[:k]
	if r.masked {
		r.keyPos = Mask(chunk, r.key, r.keyPos)
	}
	if r.copied {
		if r.op.IsControl() {
			r.ctrlLen += copy(r.ctrl[r.ctrlLen:], chunk)
		} else {
			r.msg = append(r.msg, chunk...)
		}
	}
	r.left -= uint64(k)
	return k
}

// endFrame finishes a frame and says whether a message is now ready.
func (r *Reader) endFrame() (bool, error) {
	if r.op.IsControl() {
		r.Op = r.op
		if r.op == OpClose {
			return true, r.checkClose()
		}
		return true, nil
	}
	if !r.fin {
		return false, nil
	}
	r.Op = r.msgOp
	r.msgOp = 0
	if r.Op == OpText && !utf8.Valid(r.Payload()) {
		return false, r.fail("text message that is not UTF-8")
	}
	return true, nil
}

func (r *Reader) checkClose() error {
	p := r.Payload()
	if len(p) == 0 {
		return nil
	}
	if code := int(binary.BigEndian.Uint16(p)); !validCloseCode(code) {
		return r.fail("close code %d", code)
	}
	if !utf8.Valid(p[2:]) {
		return r.fail("close reason that is not UTF-8")
	}
	return nil
}
