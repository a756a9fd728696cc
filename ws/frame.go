// Package ws frames WebSocket (RFC 6455) messages for tressi's event loop.
//
// Like h1, it is fed raw bytes read from a non-blocking socket and never
// reads a socket itself: a Reader turns bytes into whole messages (data
// messages reassembled from their fragments, control frames handed out as
// they come, even between fragments), AppendFrame writes one frame into a
// caller's buffer, and the handshake helpers write the HTTP upgrade request
// and check the 101 answer. Once its buffers have grown to the largest
// message seen, nothing here allocates.
//
// Both roles are covered because the built-in target speaks WebSocket too: a
// client masks what it sends and refuses masked frames; a server (a Reader
// with FromClient set) requires them.
package ws

import (
	"encoding/binary"
	"errors"
)

// Opcode is a frame's opcode (RFC 6455 §5.2).
type Opcode byte

// Opcodes.
const (
	OpContinuation Opcode = 0x0
	OpText         Opcode = 0x1
	OpBinary       Opcode = 0x2
	OpClose        Opcode = 0x8
	OpPing         Opcode = 0x9
	OpPong         Opcode = 0xA
)

// IsControl reports whether op is a control opcode (close, ping, pong).
func (op Opcode) IsControl() bool { return op&0x8 != 0 }

func (op Opcode) String() string {
	switch op {
	case OpContinuation:
		return "continuation"
	case OpText:
		return "text"
	case OpBinary:
		return "binary"
	case OpClose:
		return "close"
	case OpPing:
		return "ping"
	case OpPong:
		return "pong"
	}
	return "reserved"
}

// Close status codes used by tressi (RFC 6455 §7.4.1).
const (
	CloseNormal        = 1000
	CloseGoingAway     = 1001
	CloseProtocolError = 1002
	CloseNoStatus      = 1005 // never sent: "the close frame had no code"
	CloseTooBig        = 1009
)

// MaxControlPayload is the largest payload of a control frame.
const MaxControlPayload = 125

// MaxHeader is the largest frame header: 2 bytes, 8 of extended length, 4 of mask.
const MaxHeader = 14

// ErrProtocol is wrapped by every error about bytes that break RFC 6455.
var ErrProtocol = errors.New("ws: protocol violation")

// ErrTooBig is returned when a message is longer than the Reader's limit.
var ErrTooBig = errors.New("ws: message too big")

// AppendFrame appends one frame to dst: header, then payload, masked with key
// when masked is set (a client masks every frame; a server never does). It
// returns the extended slice; with enough capacity in dst it does not
// allocate.
func AppendFrame(dst []byte, op Opcode, fin bool, payload []byte, masked bool, key [4]byte) []byte {
	b0 := byte(op)
	if fin {
		b0 |= 0x80
	}
	var mbit byte
	if masked {
		mbit = 0x80
	}
	n := len(payload)
	switch {
	case n <= 125:
		dst = append(dst, b0, mbit|byte(n))
	case n <= 0xffff:
		dst = append(dst, b0, mbit|126, byte(n>>8), byte(n))
	default:
		dst = append(dst, b0, mbit|127)
		dst = binary.BigEndian.AppendUint64(dst, uint64(n))
	}
	if !masked {
		return append(dst, payload...)
	}
	dst = append(dst, key[:]...)
	start := len(dst)
	dst = append(dst, payload...)
	Mask(dst[start:], key, 0)
	return dst
}

// AppendClose appends a close frame with code and reason (code 0: no body).
func AppendClose(dst []byte, code int, reason string, masked bool, key [4]byte) []byte {
	var body [MaxControlPayload]byte
	n := 0
	if code != 0 {
		binary.BigEndian.PutUint16(body[:2], uint16(code))
		n = 2 + copy(body[2:], reason)
	}
	return AppendFrame(dst, OpClose, true, body[:n], masked, key)
}

// Mask XORs b with key in place, starting at byte pos of the key's cycle
// (pos lets a payload be unmasked piece by piece as it arrives). It returns
// the position after b.
func Mask(b []byte, key [4]byte, pos int) int {
	pos &= 3
	i := 0
	for ; i < len(b) && pos != 0; i++ {
		b[i] ^= key[pos]
		pos = (pos + 1) & 3
	}
	if len(b)-i >= 8 {
		k32 := uint32(key[0]) | uint32(key[1])<<8 | uint32(key[2])<<16 | uint32(key[3])<<24
		k64 := uint64(k32) | uint64(k32)<<32
		for ; len(b)-i >= 8; i += 8 {
			v := binary.LittleEndian.Uint64(b[i:])
			binary.LittleEndian.PutUint64(b[i:], v^k64)
		}
	}
	for ; i < len(b); i++ {
		b[i] ^= key[pos]
		pos = (pos + 1) & 3
	}
	return pos
}

// validCloseCode reports whether a peer may send code in a close frame
// (RFC 6455 §7.4: 1004–1006 and 1015 are reserved; 3000–4999 are for
// applications and libraries).
func validCloseCode(code int) bool {
	switch {
	case code >= 1000 && code <= 1003, code >= 1007 && code <= 1014:
		return true
	case code >= 3000 && code <= 4999:
		return true
	}
	return false
}
