package ws

import (
	"bytes"
	"crypto/sha1"
	"encoding/base64"
	"errors"
	"fmt"
)

// ErrHandshake is wrapped by every error about a refused or malformed upgrade.
var ErrHandshake = errors.New("ws: handshake failed")

// keyGUID is the fixed GUID of RFC 6455 §1.3.
const keyGUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"

// KeyLen is the length of a Sec-WebSocket-Key (16 random bytes, base64).
const KeyLen = 24

// MaxResponseHead bounds the 101 response head a client accepts.
const MaxResponseHead = 16 << 10

// NewKey encodes 16 nonce bytes as a Sec-WebSocket-Key.
func NewKey(nonce [16]byte) [KeyLen]byte {
	var k [KeyLen]byte
	base64.StdEncoding.Encode(k[:], nonce[:])
	return k
}

// AcceptKey is the Sec-WebSocket-Accept value that answers key.
func AcceptKey(key []byte) [28]byte {
	h := sha1.New()
	h.Write(key)
	h.Write([]byte(keyGUID))
	var sum [sha1.Size]byte
	var out [28]byte
	base64.StdEncoding.Encode(out[:], h.Sum(sum[:0]))
	return out
}

// Header is one extra header of an upgrade request.
type Header struct{ Name, Value string }

// AppendRequest appends the HTTP/1.1 upgrade request (RFC 6455 §4.1) for
// host and target (path and query) to dst.
func AppendRequest(dst []byte, host, target string, key [KeyLen]byte, protocols []string, headers []Header) []byte {
	if target == "" {
		target = "/"
	}
	dst = append(dst, "GET "...)
	dst = append(dst, target...)
	dst = append(dst, " HTTP/1.1\r\nHost: "...)
	dst = append(dst, host...)
	dst = append(dst, "\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: "...)
	dst = append(dst, key[:]...)
	dst = append(dst, "\r\n"...)
	if len(protocols) > 0 {
		dst = append(dst, "Sec-WebSocket-Protocol: "...)
		for i, p := range protocols {
			if i > 0 {
				dst = append(dst, ", "...)
			}
			dst = append(dst, p...)
		}
		dst = append(dst, "\r\n"...)
	}
	for _, h := range headers {
		dst = append(dst, h.Name...)
		dst = append(dst, ": "...)
		dst = append(dst, h.Value...)
		dst = append(dst, "\r\n"...)
	}
	return append(dst, "\r\n"...)
}

// Response is the outcome of a checked upgrade response.
type Response struct {
	Status   int    // the HTTP status of the answer
	Protocol string // the subprotocol the server chose ("" when none)
}

// CheckResponse looks for a complete response head at the start of b. It
// returns n = 0 while the head is incomplete; otherwise n is the head's
// length (bytes after it are already WebSocket frames). A head that is
// complete but refuses the upgrade (any status but 101, a wrong
// Sec-WebSocket-Accept, a subprotocol never offered) is an error wrapping
// ErrHandshake, with Response.Status set so the caller can record it.
func CheckResponse(b []byte, key [KeyLen]byte, protocols []string) (n int, resp Response, err error) {
	end := bytes.Index(b, []byte("\r\n\r\n"))
	if end < 0 {
		if len(b) > MaxResponseHead {
			return 0, resp, fmt.Errorf("%w: response head over %d bytes", ErrHandshake, MaxResponseHead)
		}
		return 0, resp, nil
	}
	n = end + 4
	lines := bytes.Split(b[:end], []byte("\r\n"))
	st := lines[0]
	if len(st) < 12 || !bytes.HasPrefix(st, []byte("HTTP/1.1 ")) || !isDigits(st[9:12]) {
		return n, resp, fmt.Errorf("%w: status line %q", ErrHandshake, clip(st))
	}
	resp.Status = int(st[9]-'0')*100 + int(st[10]-'0')*10 + int(st[11]-'0')
	if resp.Status != 101 {
		return n, resp, fmt.Errorf("%w: status %d instead of 101 Switching Protocols", ErrHandshake, resp.Status)
	}
	var upgrade, connection, accept bool
	want := AcceptKey(key[:])
	for _, line := range lines[1:] {
		name, value, ok := bytes.Cut(line, []byte(":"))
		if !ok {
			return n, resp, fmt.Errorf("%w: header line %q", ErrHandshake, clip(line))
		}
		value = bytes.TrimSpace(value)
		switch {
		case bytes.EqualFold(name, []byte("Upgrade")):
			upgrade = bytes.EqualFold(value, []byte("websocket"))
		case bytes.EqualFold(name, []byte("Connection")):
			connection = hasToken(value, "upgrade")
		case bytes.EqualFold(name, []byte("Sec-WebSocket-Accept")):
			accept = bytes.Equal(value, want[:])
		case bytes.EqualFold(name, []byte("Sec-WebSocket-Protocol")):
			resp.Protocol = string(value)
		case bytes.EqualFold(name, []byte("Sec-WebSocket-Extensions")):
			return n, resp, fmt.Errorf("%w: server chose extensions %q that were never offered", ErrHandshake, clip(value))
		}
	}
	switch {
	case !upgrade:
		return n, resp, fmt.Errorf("%w: no `Upgrade: websocket` in the 101 response", ErrHandshake)
	case !connection:
		return n, resp, fmt.Errorf("%w: no `Connection: Upgrade` in the 101 response", ErrHandshake)
	case !accept:
		return n, resp, fmt.Errorf("%w: Sec-WebSocket-Accept missing or wrong", ErrHandshake)
	}
	if resp.Protocol != "" && !offered(resp.Protocol, protocols) {
		return n, resp, fmt.Errorf("%w: server chose subprotocol %q, offered %q", ErrHandshake, resp.Protocol, protocols)
	}
	return n, resp, nil
}

func offered(p string, protocols []string) bool {
	for _, o := range protocols {
		if o == p {
			return true
		}
	}
	return false
}

// hasToken reports whether a comma-separated header value holds tok (case-insensitive).
func hasToken(v []byte, tok string) bool {
	for part := range bytes.SplitSeq(v, []byte(",")) {
		if bytes.EqualFold(bytes.TrimSpace(part), []byte(tok)) {
			return true
		}
	}
	return false
}

func isDigits(b []byte) bool {
	for _, c := range b {
		if c < '0' || c > '9' {
			return false
		}
	}
	return len(b) > 0
}

func clip(b []byte) []byte {
	if len(b) > 64 {
		return b[:64]
	}
	return b
}
