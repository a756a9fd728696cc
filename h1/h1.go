// Package h1 frames HTTP/1.1 responses read from raw sockets.
//
// It exists because tressi's event-loop engine reads responses from raw
// non-blocking sockets driven by epoll, and fasthttp's per-request overhead
// (a blocking net.Conn per connection, every header parsed and stored, the
// body buffered whole) is cost added around the very thing being measured.
// A Parser answers only what a load generator needs: where the response
// ends, its status, whether the connection can carry another request, how
// long the body was, and optionally the first bytes of it. Once warmed up it
// does not allocate per response, makes no per-byte function-pointer calls,
// and consumes body bytes as they arrive, so the caller's fixed-size read
// buffer never has to hold a whole body.
//
// What it accepts (RFC 9112 plus the leniency real clients have):
//
//   - Status lines "HTTP/1.<digit> <3 digits>[ <reason>]"; the reason is
//     optional and extra spaces before the code are tolerated, as net/http
//     does. HTTP/1.0 means HTTP/1.0 semantics, any other minor version
//     HTTP/1.1. Codes outside 100..999 are rejected. Input that cannot be
//     the start of "HTTP/1." is rejected as soon as its first bytes arrive.
//   - Lines ending in CRLF or a bare LF (as net/http and fasthttp accept).
//   - Header names are compared case-insensitively; a name must be
//     non-empty and free of whitespace, and a line without a colon is
//     rejected.
//   - obs-fold continuation lines are accepted (and ignored) for fields the
//     parser does not interpret; folding a Content-Length,
//     Transfer-Encoding or Connection field is rejected, since a folded
//     framing field is more likely an attack or a bug than something to
//     guess at.
//   - 1xx interim responses (other than 101, which we never ask for) are
//     skipped; responses to HEAD, 1xx, 204 and 304 have no body.
//   - Transfer-Encoding whose last coding is chunked is de-chunked. Chunk
//     extensions and trailer fields are skipped, whitespace before ";ext"
//     is tolerated, and chunk lines and the line end after chunk data may
//     be a bare LF (fasthttp accepts that; net/http refuses it). Any other
//     Transfer-Encoding means the body runs to the close. Transfer-Encoding
//     is honoured on HTTP/1.0 too, but then, and whenever Content-Length is
//     also present, the connection is marked Close because its framing
//     cannot be trusted (RFC 9112 §6.1, §6.3).
//   - Content-Length: digits only; repeated fields or comma lists must
//     agree (net/http refuses a comma list; RFC 9110 §8.6 allows it).
//   - Neither: the body is delimited by the close and finished by EOF.
package h1

import (
	"bytes"
	"errors"
	"fmt"
	"io"
)

// Errors. Every malformed-input error wraps ErrProtocol with a short reason.
var (
	ErrProtocol     = errors.New("h1: malformed response")
	ErrBodyTooLarge = errors.New("h1: response body too large") // NOT wrapping ErrProtocol
)

// MaxHead is the largest status line + header block accepted (also per
// interim 1xx head); larger is ErrProtocol.
const MaxHead = 64 << 10

// maxChunkLine bounds a chunk-size line (size, extensions, line end), the
// same limit net/http applies, so a server cannot make us buffer forever.
const maxChunkLine = 4 << 10

// maxChunkSize keeps size arithmetic far from int64 overflow; no real chunk
// comes near it.
const maxChunkSize = 1 << 60

type state uint8

const (
	stHead       state = iota // reading a (possibly interim) head
	stLength                  // Content-Length body, p.left bytes to go
	stChunkSize               // expecting a chunk-size line
	stChunkData               // inside chunk data, p.left bytes to go
	stChunkEnd                // expecting the CRLF after chunk data
	stTrailer                 // reading trailer fields after the last chunk
	stUntilClose              // body delimited by the close
	stDone
	stFailed
)

// Parser frames one response at a time. The zero value is ready after Reset.
type Parser struct {
	// Valid once Feed (or EOF) reported done:
	Status  int   // the final (non-1xx) status code
	Close   bool  // the connection cannot carry another request
	BodyLen int64 // decoded body bytes (after de-chunking)
	// Head, when set, is called once the final head is parsed, with its
	// status and its raw bytes (status line through the blank line; only
	// valid during the call). It returns how many bytes of the decoded body
	// to keep in Body (0: none). Used to sample the first response of a kind.
	Head func(status int, head []byte) (keep int)
	Body []byte // the kept body prefix; the parser reuses its capacity across responses
	// Tap, when set, is called with each piece of the decoded body as it
	// is consumed (only valid during the call): response checks read the
	// body through it without the parser keeping any of it.
	Tap func(b []byte)

	st      state
	err     error // sticky error once st == stFailed
	isHead  bool  // the request was HEAD
	maxBody int64
	keep    int   // body bytes still to copy into Body
	left    int64 // bytes left in a Content-Length body or the current chunk
	trailer int   // trailer bytes consumed so far, bounded by MaxHead

	// Per-head state, reset at the start of each (interim or final) head.
	scan     int  // bytes of the current head already split into lines
	lines    int  // lines seen in the current head
	minor    byte // HTTP/1.<minor>
	code     int
	cl       int64 // Content-Length, valid when hasCL
	hasCL    bool
	te       bool // Transfer-Encoding present
	chunked  bool // last transfer coding seen is chunked
	connCl   bool // Connection: close
	connKA   bool // Connection: keep-alive
	lastKind hdr  // kind of the previous header line, for obs-fold
}

type hdr uint8

const (
	hdrNone hdr = iota // no header yet (obs-fold not allowed)
	hdrOther
	hdrFraming // Content-Length, Transfer-Encoding or Connection
)

// Reset prepares p for the response to the next request. head: that
// request's method was HEAD (no body whatever the headers say). maxBody: the
// largest decoded body accepted, 0 for no limit; going over it is
// ErrBodyTooLarge.
func (p *Parser) Reset(head bool, maxBody int64) {
	p.Status, p.Close, p.BodyLen = 0, false, 0
	p.Body = p.Body[:0]
	p.st, p.err = stHead, nil
	p.isHead, p.maxBody = head, maxBody
	p.keep, p.left, p.trailer = 0, 0, 0
	p.resetHead()
}

func (p *Parser) resetHead() {
	p.scan, p.lines, p.minor, p.code = 0, 0, 0, 0
	p.cl, p.hasCL, p.te, p.chunked, p.connCl, p.connKA = 0, false, false, false, false, false
	p.lastKind = hdrNone
}

// Feed parses b, the bytes received and not consumed so far, and returns how
// many it consumed and whether the response is complete. The caller drops the
// consumed bytes, keeps the rest at the front of its buffer, appends newly
// read bytes and calls Feed again. A head (or a chunk-size line) not yet
// complete in b is not consumed. Bytes after the end of the response are
// never consumed. After done or an error, call Reset before the next
// response.
func (p *Parser) Feed(b []byte) (n int, done bool, err error) {
	if p.st == stFailed {
		return 0, false, p.err
	}
	for n < len(b) || p.st == stDone {
		switch p.st {
		case stHead:
			m, complete, err := p.head(b[n:])
			if err != nil {
				return n, false, p.fail(err)
			}
			if !complete {
				return n, false, nil
			}
			n += m
		case stLength:
			m := p.body(b[n:], p.left)
			n += m
			p.left -= int64(m)
			if p.left == 0 {
				p.st = stDone
			}
		case stUntilClose:
			n += p.body(b[n:], int64(len(b)-n))
			if p.maxBody > 0 && p.BodyLen > p.maxBody {
				return n, false, p.fail(ErrBodyTooLarge)
			}
		case stChunkSize:
			m, err := p.chunkSize(b[n:])
			if err != nil {
				return n, false, p.fail(err)
			}
			if m == 0 {
				return n, false, nil
			}
			n += m
		case stChunkData:
			m := p.body(b[n:], p.left)
			n += m
			p.left -= int64(m)
			if p.left == 0 {
				p.st = stChunkEnd
			}
		case stChunkEnd:
			r := b[n:]
			switch {
			case r[0] == '\n':
				n++
			case r[0] != '\r':
				return n, false, p.fail(fmt.Errorf("%w: chunk data not followed by CRLF (got %q)", ErrProtocol, r[0]))
			case len(r) < 2:
				return n, false, nil
			case r[1] != '\n':
				return n, false, p.fail(fmt.Errorf("%w: chunk data not followed by CRLF (got \"\\r\" %q)", ErrProtocol, r[1]))
			default:
				n += 2
			}
			p.st = stChunkSize
		case stTrailer:
			m, err := p.trailerLine(b[n:])
			if err != nil {
				return n, false, p.fail(err)
			}
			if m == 0 {
				return n, false, nil
			}
			n += m
		case stDone:
			return n, true, nil
		}
	}
	return n, false, nil
}

// EOF tells p the peer closed the connection after the bytes fed so far.
// done: the response was delimited by the close (no Content-Length, not
// chunked) and is complete; otherwise err is io.ErrUnexpectedEOF (also when
// nothing at all was received).
func (p *Parser) EOF() (done bool, err error) {
	switch p.st {
	case stUntilClose:
		p.st = stDone
		return true, nil
	case stDone:
		return true, nil
	case stFailed:
		return false, p.err
	}
	return false, io.ErrUnexpectedEOF
}

func (p *Parser) fail(err error) error {
	p.st, p.err = stFailed, err
	return err
}

// body consumes up to max bytes of decoded body from b, keeping the prefix
// the Head callback asked for.
func (p *Parser) body(b []byte, max int64) int {
	if int64(len(b)) > max {
		b = b[:max]
	}
	if p.keep > 0 {
		k := min(p.keep, len(b))
		p.Body = append(p.Body, b[:k]...)
		p.keep -= k
	}
	if p.Tap != nil && len(b) > 0 {
		p.Tap(b)
	}
	p.BodyLen += int64(len(b))
	return len(b)
}

const httpPrefix = "HTTP/1."

// head splits the current head into lines as they become complete,
// interpreting each once, and consumes the head only when the blank line
// arrives. p.scan remembers how far it got, since the caller hands the same
// unconsumed bytes back at the front of b.
func (p *Parser) head(b []byte) (n int, complete bool, err error) {
	if p.scan > len(b) {
		// Not a server problem but a caller that dropped unconsumed bytes;
		// fail instead of slicing out of range on an event-loop goroutine.
		return 0, false, errors.New("h1: Feed called without the unconsumed bytes of the head")
	}
	for {
		i := bytes.IndexByte(b[p.scan:], '\n')
		if i < 0 {
			if p.lines == 0 {
				// Fail fast on garbage: a server that sends a short
				// non-HTTP line and waits must not leave us waiting too.
				k := min(len(b), len(httpPrefix))
				if string(b[:k]) != httpPrefix[:k] {
					return 0, false, fmt.Errorf("%w: status line %q is not HTTP/1.x", ErrProtocol, clip(b))
				}
			}
			if len(b) >= MaxHead {
				return 0, false, fmt.Errorf("%w: head larger than %d bytes", ErrProtocol, MaxHead)
			}
			return 0, false, nil
		}
		end := p.scan + i + 1
		if end > MaxHead {
			return 0, false, fmt.Errorf("%w: head larger than %d bytes", ErrProtocol, MaxHead)
		}
		line := b[p.scan : end-1]
		if len(line) > 0 && line[len(line)-1] == '\r' {
			line = line[:len(line)-1]
		}
		p.scan = end
		p.lines++
		switch {
		case p.lines == 1:
			err = p.statusLine(line)
		case len(line) == 0:
			return end, true, p.endHead(b[:end])
		default:
			err = p.field(line)
		}
		if err != nil {
			return 0, false, err
		}
	}
}

func (p *Parser) statusLine(line []byte) error {
	if len(line) < len(httpPrefix)+1 || string(line[:len(httpPrefix)]) != httpPrefix || !isDigit(line[len(httpPrefix)]) {
		return fmt.Errorf("%w: status line %q is not HTTP/1.x", ErrProtocol, clip(line))
	}
	if len(line) == len(httpPrefix)+1 || line[len(httpPrefix)+1] != ' ' {
		return fmt.Errorf("%w: status line %q has no status code", ErrProtocol, clip(line))
	}
	p.minor = line[len(httpPrefix)] - '0'
	rest := line[len(httpPrefix)+2:]
	for len(rest) > 0 && rest[0] == ' ' {
		rest = rest[1:]
	}
	if len(rest) < 3 || !isDigit(rest[0]) || !isDigit(rest[1]) || !isDigit(rest[2]) || (len(rest) > 3 && rest[3] != ' ') {
		return fmt.Errorf("%w: status code in %q is not 3 digits", ErrProtocol, clip(line))
	}
	p.code = int(rest[0]-'0')*100 + int(rest[1]-'0')*10 + int(rest[2]-'0')
	if p.code < 100 {
		return fmt.Errorf("%w: status code %d is below 100", ErrProtocol, p.code)
	}
	if p.code == 101 {
		return fmt.Errorf("%w: unexpected 101 Switching Protocols (no upgrade was requested)", ErrProtocol)
	}
	return nil
}

// field interprets one header line; only the framing fields matter.
func (p *Parser) field(line []byte) error {
	if line[0] == ' ' || line[0] == '\t' {
		switch p.lastKind {
		case hdrNone:
			return fmt.Errorf("%w: first header line %q starts with whitespace", ErrProtocol, clip(line))
		case hdrFraming:
			return fmt.Errorf("%w: obs-fold continuation %q of a framing header", ErrProtocol, clip(line))
		}
		return nil
	}
	c := bytes.IndexByte(line, ':')
	if c < 0 {
		return fmt.Errorf("%w: header line %q has no colon", ErrProtocol, clip(line))
	}
	name, value := line[:c], trim(line[c+1:])
	if c == 0 {
		return fmt.Errorf("%w: header line %q has an empty name", ErrProtocol, clip(line))
	}
	if bytes.IndexByte(name, ' ') >= 0 || bytes.IndexByte(name, '\t') >= 0 {
		return fmt.Errorf("%w: header name %q contains whitespace", ErrProtocol, clip(name))
	}
	p.lastKind = hdrOther
	switch {
	case equalLower(name, "content-length"):
		p.lastKind = hdrFraming
		return p.contentLength(value)
	case equalLower(name, "transfer-encoding"):
		p.lastKind = hdrFraming
		p.te = true
		for tok := range tokens(value) {
			p.chunked = equalLower(tok, "chunked")
		}
	case equalLower(name, "connection"):
		p.lastKind = hdrFraming
		for tok := range tokens(value) {
			switch {
			case equalLower(tok, "close"):
				p.connCl = true
			case equalLower(tok, "keep-alive"):
				p.connKA = true
			}
		}
	}
	return nil
}

func (p *Parser) contentLength(value []byte) error {
	empty := true
	for v := range tokens(value) {
		empty = false
		var n int64
		for _, c := range v {
			if !isDigit(c) {
				return fmt.Errorf("%w: Content-Length %q is not a non-negative integer", ErrProtocol, clip(value))
			}
			d := int64(c - '0')
			if n > (1<<63-1-d)/10 {
				return fmt.Errorf("%w: Content-Length %q overflows", ErrProtocol, clip(value))
			}
			n = n*10 + d
		}
		if p.hasCL && p.cl != n {
			return fmt.Errorf("%w: Content-Length values disagree (%d and %d)", ErrProtocol, p.cl, n)
		}
		p.cl, p.hasCL = n, true
	}
	if empty {
		return fmt.Errorf("%w: Content-Length is empty", ErrProtocol)
	}
	return nil
}

// endHead decides the framing once a head is complete (RFC 9112 §6.3).
func (p *Parser) endHead(head []byte) error {
	if p.code < 200 {
		// Interim response: it has no body; start over on the next head,
		// counting MaxHead afresh.
		p.resetHead()
		return nil
	}
	p.Status = p.code
	p.Close = p.connCl || (p.minor == 0 && !p.connKA)
	if p.Head != nil {
		// Called before the body limit is checked: a sampler wants to see
		// the head of an oversized response too.
		p.keep = max(p.Head(p.code, head), 0)
	}
	switch {
	case p.isHead || p.code == 204 || p.code == 304:
		p.st = stDone
	case p.te && p.chunked:
		// Both framings present (or TE on HTTP/1.0): someone along the way
		// may have framed it differently, so do not reuse the connection.
		if p.hasCL || p.minor == 0 {
			p.Close = true
		}
		p.st = stChunkSize
	case p.te:
		p.Close = true
		p.st = stUntilClose
	case p.hasCL:
		if p.maxBody > 0 && p.cl > p.maxBody {
			return ErrBodyTooLarge
		}
		p.left = p.cl
		p.st = stLength
		if p.cl == 0 {
			p.st = stDone
		}
	default:
		p.Close = true
		p.st = stUntilClose
	}
	return nil
}

// chunkSize consumes one complete chunk-size line, or nothing if it is not
// complete yet.
func (p *Parser) chunkSize(b []byte) (int, error) {
	if !isHex(b[0]) {
		return 0, fmt.Errorf("%w: chunk size starts with %q, not a hex digit", ErrProtocol, b[0])
	}
	i := bytes.IndexByte(b, '\n')
	if i+1 > maxChunkLine || i < 0 && len(b) >= maxChunkLine {
		return 0, fmt.Errorf("%w: chunk-size line longer than %d bytes", ErrProtocol, maxChunkLine)
	}
	if i < 0 {
		return 0, nil
	}
	line := b[:i]
	if len(line) > 0 && line[len(line)-1] == '\r' {
		line = line[:len(line)-1]
	}
	var size int64
	j := 0
	for ; j < len(line) && isHex(line[j]); j++ {
		if size > maxChunkSize>>4 {
			return 0, fmt.Errorf("%w: chunk size %q overflows", ErrProtocol, clip(line))
		}
		size = size<<4 | int64(unhex(line[j]))
	}
	for j < len(line) && (line[j] == ' ' || line[j] == '\t') {
		j++
	}
	if j < len(line) && line[j] != ';' {
		return 0, fmt.Errorf("%w: chunk-size line %q is not hex size [;ext]", ErrProtocol, clip(line))
	}
	if size == 0 {
		p.st = stTrailer
		return i + 1, nil
	}
	if p.maxBody > 0 && p.BodyLen+size > p.maxBody {
		return 0, ErrBodyTooLarge
	}
	p.left = size
	p.st = stChunkData
	return i + 1, nil
}

// trailerLine consumes one complete trailer line; the empty line ends the
// response.
func (p *Parser) trailerLine(b []byte) (int, error) {
	i := bytes.IndexByte(b, '\n')
	if i < 0 {
		if p.trailer+len(b) >= MaxHead {
			return 0, fmt.Errorf("%w: trailer larger than %d bytes", ErrProtocol, MaxHead)
		}
		return 0, nil
	}
	p.trailer += i + 1
	if p.trailer > MaxHead {
		return 0, fmt.Errorf("%w: trailer larger than %d bytes", ErrProtocol, MaxHead)
	}
	line := b[:i]
	if len(line) > 0 && line[len(line)-1] == '\r' {
		line = line[:len(line)-1]
	}
	if len(line) == 0 {
		p.st = stDone
	} else if line[0] != ' ' && line[0] != '\t' && bytes.IndexByte(line, ':') <= 0 {
		return 0, fmt.Errorf("%w: trailer line %q is not a field", ErrProtocol, clip(line))
	}
	return i + 1, nil
}

// tokens yields the non-empty, OWS-trimmed elements of a comma list.
func tokens(v []byte) func(func([]byte) bool) {
	return func(yield func([]byte) bool) {
		for len(v) > 0 {
			var tok []byte
			if i := bytes.IndexByte(v, ','); i >= 0 {
				tok, v = v[:i], v[i+1:]
			} else {
				tok, v = v, nil
			}
			if tok = trim(tok); len(tok) > 0 && !yield(tok) {
				return
			}
		}
	}
}

func trim(b []byte) []byte {
	for len(b) > 0 && (b[0] == ' ' || b[0] == '\t') {
		b = b[1:]
	}
	for len(b) > 0 && (b[len(b)-1] == ' ' || b[len(b)-1] == '\t') {
		b = b[:len(b)-1]
	}
	return b
}

// equalLower reports whether b equals the lower-case ASCII s, ignoring case.
func equalLower(b []byte, s string) bool {
	if len(b) != len(s) {
		return false
	}
	for i := range len(s) {
		c := b[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != s[i] {
			return false
		}
	}
	return true
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

func isHex(c byte) bool { return isDigit(c) || 'a' <= c|0x20 && c|0x20 <= 'f' }

func unhex(c byte) byte {
	if isDigit(c) {
		return c - '0'
	}
	return c | 0x20 - 'a' + 10
}

// clip bounds what an error message quotes from the peer.
func clip(b []byte) []byte {
	if len(b) > 64 {
		return b[:64]
	}
	return b
}
