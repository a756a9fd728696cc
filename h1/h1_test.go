package h1

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"strings"
	"testing"

	"pgregory.net/rapid"
)

// fataler is what parse needs of *testing.T and *rapid.T.
type fataler interface {
	Helper()
	Fatalf(format string, args ...any)
}

// result is what one response parse reported.
type result struct {
	n       int // bytes consumed in total
	done    bool
	status  int
	close   bool
	bodyLen int64
	body    string
	err     error
}

// parse plays the caller: it appends the pieces of in to a buffer one at a
// time, feeds the unconsumed bytes, drops what was consumed, and calls EOF
// once everything was delivered without the response completing. It checks
// the Feed contract on every call.
func parse(t fataler, p *Parser, head bool, maxBody int64, in []byte, pieces []int) result {
	t.Helper()
	p.Reset(head, maxBody)
	p.Head = func(int, []byte) int { return 1 << 20 }
	var buf []byte
	var r result
	off := 0
	feed := func(b []byte) bool {
		n, done, err := p.Feed(b)
		if n < 0 || n > len(b) {
			t.Fatalf("Feed consumed %d of %d bytes", n, len(b))
		}
		r.n += n
		buf = append(buf[:0], b[n:]...)
		if err != nil {
			r.err = err
			return true
		}
		if done {
			r.done = true
			return true
		}
		return false
	}
	for _, k := range pieces {
		if off >= len(in) {
			break
		}
		k = min(k, len(in)-off)
		buf = append(buf, in[off:off+k]...)
		off += k
		if feed(buf) {
			return r.fill(p)
		}
	}
	if off < len(in) {
		buf = append(buf, in[off:]...)
		if feed(buf) {
			return r.fill(p)
		}
	}
	r.done, r.err = p.EOF()
	return r.fill(p)
}

func (r result) fill(p *Parser) result {
	if r.done {
		r.status, r.close, r.bodyLen, r.body = p.Status, p.Close, p.BodyLen, string(p.Body)
	}
	return r
}

func whole(t fataler, head bool, maxBody int64, in string) result {
	var p Parser
	return parse(t, &p, head, maxBody, []byte(in), nil)
}

type tcase struct {
	name    string
	in      string
	head    bool  // request was HEAD
	maxBody int64 //
	status  int
	body    string
	close   bool
	eof     bool   // completes only at EOF (body delimited by close)
	err     error  // expected error class
	errText string // expected in the error text
}

var cases = []tcase{
	// Status lines.
	{name: "ok", in: "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello", status: 200, body: "hello"},
	{name: "no reason", in: "HTTP/1.1 404\r\nContent-Length: 0\r\n\r\n", status: 404},
	{name: "empty reason", in: "HTTP/1.1 503 \r\nContent-Length: 0\r\n\r\n", status: 503},
	{name: "long reason", in: "HTTP/1.1 500 Internal Server Error, really\r\nContent-Length: 1\r\n\r\nx", status: 500, body: "x"},
	{name: "extra spaces before code", in: "HTTP/1.1  200 OK\r\nContent-Length: 0\r\n\r\n", status: 200},
	{name: "status 999", in: "HTTP/1.1 999 Odd\r\nContent-Length: 0\r\n\r\n", status: 999},
	{name: "HTTP/1.2 treated as 1.1", in: "HTTP/1.2 200 OK\r\nContent-Length: 0\r\n\r\n", status: 200},
	{name: "garbage", in: "garbage\r\n\r\n", err: ErrProtocol, errText: `status line "garbage" is not HTTP/1.x`},
	{name: "garbage no newline", in: "SSH-2.0-OpenSSH", err: ErrProtocol, errText: "is not HTTP/1.x"},
	{name: "HTTP/2", in: "HTTP/2 200\r\n\r\n", err: ErrProtocol, errText: "is not HTTP/1.x"},
	{name: "HTTP/1.x", in: "HTTP/1.x 200 OK\r\n\r\n", err: ErrProtocol, errText: "is not HTTP/1.x"},
	{name: "html", in: "<html><body>hi</body></html>\n", err: ErrProtocol, errText: "is not HTTP/1.x"},
	{name: "leading blank line", in: "\r\nHTTP/1.1 200 OK\r\n\r\n", err: ErrProtocol, errText: "is not HTTP/1.x"},
	{name: "no status code", in: "HTTP/1.1\r\n\r\n", err: ErrProtocol, errText: "has no status code"},
	{name: "2 digit status", in: "HTTP/1.1 20 OK\r\n\r\n", err: ErrProtocol, errText: "is not 3 digits"},
	{name: "4 digit status", in: "HTTP/1.1 2000 OK\r\n\r\n", err: ErrProtocol, errText: "is not 3 digits"},
	{name: "letters in status", in: "HTTP/1.1 2x0 OK\r\n\r\n", err: ErrProtocol, errText: "is not 3 digits"},
	{name: "status below 100", in: "HTTP/1.1 099 Low\r\n\r\n", err: ErrProtocol, errText: "status code 99 is below 100"},
	{name: "101", in: "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\n\r\n", err: ErrProtocol, errText: "101 Switching Protocols"},

	// Line endings and header syntax.
	{name: "bare LF", in: "HTTP/1.1 200 OK\nContent-Length: 2\n\nhi", status: 200, body: "hi"},
	{name: "mixed line ends", in: "HTTP/1.1 200 OK\r\nA: b\nContent-Length: 2\r\n\nhi", status: 200, body: "hi"},
	{name: "header case", in: "HTTP/1.1 200 OK\r\ncOnTeNt-LeNgTh: 2\r\nCONNECTION: CLOSE\r\n\r\nhi", status: 200, body: "hi", close: true},
	{name: "no colon", in: "HTTP/1.1 200 OK\r\nContent-Length 2\r\n\r\nhi", err: ErrProtocol, errText: `header line "Content-Length 2" has no colon`},
	{name: "empty name", in: "HTTP/1.1 200 OK\r\n: x\r\n\r\n", err: ErrProtocol, errText: "empty name"},
	{name: "space before colon", in: "HTTP/1.1 200 OK\r\nContent-Length : 2\r\n\r\nhi", err: ErrProtocol, errText: `header name "Content-Length " contains whitespace`},
	{name: "obs-fold ignored", in: "HTTP/1.1 200 OK\r\nX-A: one\r\n two\r\n\tthree\r\nContent-Length: 1\r\n\r\nx", status: 200, body: "x"},
	{name: "obs-fold of framing", in: "HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip,\r\n chunked\r\n\r\n", err: ErrProtocol, errText: "obs-fold continuation"},
	{name: "fold first line", in: "HTTP/1.1 200 OK\r\n X: y\r\n\r\n", err: ErrProtocol, errText: "starts with whitespace"},
	{name: "empty value", in: "HTTP/1.1 200 OK\r\nX-Empty:\r\nContent-Length: 0\r\n\r\n", status: 200},
	{name: "head too large", in: "HTTP/1.1 200 OK\r\nX: " + strings.Repeat("a", MaxHead) + "\r\n\r\n", err: ErrProtocol, errText: "head larger than 65536 bytes"},
	{name: "head too large unterminated", in: "HTTP/1.1 200 OK\r\nX: " + strings.Repeat("a", MaxHead), err: ErrProtocol, errText: "head larger than 65536 bytes"},
	{name: "big head fits", in: "HTTP/1.1 200 OK\r\nX: " + strings.Repeat("a", MaxHead-100) + "\r\nContent-Length: 0\r\n\r\n", status: 200},

	// Interim responses.
	{name: "100 continue", in: "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nhi", status: 200, body: "hi"},
	{name: "several 1xx", in: "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\nLink: </a>\r\nConnection: close\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nhi", status: 200, body: "hi"},
	{name: "1xx then garbage", in: "HTTP/1.1 100 Continue\r\n\r\nnope\r\n", err: ErrProtocol, errText: "is not HTTP/1.x"},
	{name: "1xx with HEAD", in: "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 9\r\n\r\n", head: true, status: 200},

	// Responses without a body.
	{name: "HEAD ignores CL", in: "HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\n", head: true, status: 200},
	{name: "HEAD ignores chunked", in: "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n", head: true, status: 200},
	{name: "HEAD without framing", in: "HTTP/1.1 200 OK\r\n\r\n", head: true, status: 200},
	{name: "HEAD over maxBody", in: "HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\n", head: true, maxBody: 10, status: 200},
	{name: "204", in: "HTTP/1.1 204 No Content\r\n\r\n", status: 204},
	{name: "204 with CL", in: "HTTP/1.1 204 No Content\r\nContent-Length: 5\r\n\r\n", status: 204},
	{name: "304", in: "HTTP/1.1 304 Not Modified\r\nContent-Length: 99\r\n\r\n", status: 304},
	{name: "304 chunked", in: "HTTP/1.1 304 Not Modified\r\nTransfer-Encoding: chunked\r\n\r\n", status: 304},

	// Content-Length.
	{name: "CL zero", in: "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n", status: 200},
	{name: "CL repeated agree", in: "HTTP/1.1 200 OK\r\nContent-Length: 3\r\nContent-Length: 3\r\n\r\nabc", status: 200, body: "abc"},
	{name: "CL list agree", in: "HTTP/1.1 200 OK\r\nContent-Length: 3, 3\r\n\r\nabc", status: 200, body: "abc"},
	{name: "CL OWS", in: "HTTP/1.1 200 OK\r\nContent-Length: \t3 \r\n\r\nabc", status: 200, body: "abc"},
	{name: "CL disagree", in: "HTTP/1.1 200 OK\r\nContent-Length: 3\r\nContent-Length: 4\r\n\r\nabcd", err: ErrProtocol, errText: "Content-Length values disagree (3 and 4)"},
	{name: "CL list disagree", in: "HTTP/1.1 200 OK\r\nContent-Length: 3,4\r\n\r\nabcd", err: ErrProtocol, errText: "disagree"},
	{name: "CL negative", in: "HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n", err: ErrProtocol, errText: `Content-Length "-1" is not a non-negative integer`},
	{name: "CL plus", in: "HTTP/1.1 200 OK\r\nContent-Length: +1\r\n\r\nx", err: ErrProtocol, errText: "not a non-negative integer"},
	{name: "CL hex", in: "HTTP/1.1 200 OK\r\nContent-Length: 0x10\r\n\r\n", err: ErrProtocol, errText: "not a non-negative integer"},
	{name: "CL empty", in: "HTTP/1.1 200 OK\r\nContent-Length: \r\n\r\n", err: ErrProtocol, errText: "Content-Length is empty"},
	{name: "CL overflow", in: "HTTP/1.1 200 OK\r\nContent-Length: 99999999999999999999\r\n\r\n", err: ErrProtocol, errText: "overflows"},
	{name: "CL max int64 is not overflow", in: "HTTP/1.1 200 OK\r\nContent-Length: 9223372036854775807\r\n\r\n", maxBody: 100, err: ErrBodyTooLarge},
	{name: "CL over maxBody at head", in: "HTTP/1.1 200 OK\r\nContent-Length: 101\r\n\r\n", maxBody: 100, err: ErrBodyTooLarge},
	{name: "CL at maxBody", in: "HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\nabc", maxBody: 3, status: 200, body: "abc"},
	{name: "CL short body", in: "HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc", err: io.ErrUnexpectedEOF},

	// Transfer-Encoding.
	{name: "chunked", in: "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n6\r\n world\r\n0\r\n\r\n", status: 200, body: "hello world"},
	{name: "chunked upper hex and ext", in: "HTTP/1.1 200 OK\r\nTransfer-Encoding: Chunked\r\n\r\nA;name=val\r\n0123456789\r\n1 ; x\r\n!\r\n0;end\r\n\r\n", status: 200, body: "0123456789!"},
	{name: "chunked bare LF", in: "HTTP/1.1 200 OK\nTransfer-Encoding: chunked\n\n3\nabc\n0\n\n", status: 200, body: "abc"},
	{name: "chunked trailers", in: "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nab\r\n0\r\nX-Sum: 1\r\nX-Other: 2\r\n\r\n", status: 200, body: "ab"},
	{name: "chunked empty", in: "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", status: 200},
	{name: "chunked leading zeros", in: "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n0002\r\nab\r\n000\r\n\r\n", status: 200, body: "ab"},
	{name: "gzip, chunked", in: "HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip, chunked\r\n\r\n2\r\nab\r\n0\r\n\r\n", status: 200, body: "ab"},
	{name: "chunked split over fields", in: "HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nab\r\n0\r\n\r\n", status: 200, body: "ab"},
	{name: "chunked and CL", in: "HTTP/1.1 200 OK\r\nContent-Length: 100\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nab\r\n0\r\n\r\n", status: 200, body: "ab", close: true},
	{name: "chunked on HTTP/1.0 keep-alive", in: "HTTP/1.0 200 OK\r\nConnection: keep-alive\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nab\r\n0\r\n\r\n", status: 200, body: "ab", close: true},
	{name: "TE not chunked last", in: "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked, gzip\r\nContent-Length: 2\r\n\r\nabcdef", status: 200, body: "abcdef", close: true, eof: true},
	{name: "TE gzip", in: "HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip\r\n\r\nxyz", status: 200, body: "xyz", close: true, eof: true},
	{name: "chunk bad hex", in: "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", err: ErrProtocol, errText: `chunk size starts with 'z', not a hex digit`},
	{name: "chunk junk after size", in: "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5x\r\nhello\r\n0\r\n\r\n", err: ErrProtocol, errText: `chunk-size line "5x" is not hex size [;ext]`},
	{name: "chunk empty size line", in: "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n\r\n", err: ErrProtocol, errText: "not a hex digit"},
	{name: "chunk overflow", in: "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nffffffffffffffffff\r\n", err: ErrProtocol, errText: "overflows"},
	{name: "chunk missing CRLF", in: "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabcd\r\n0\r\n\r\n", err: ErrProtocol, errText: `chunk data not followed by CRLF (got 'd')`},
	{name: "chunk CR without LF", in: "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\rx0\r\n\r\n", err: ErrProtocol, errText: "not followed by CRLF"},
	{name: "chunk line too long", in: "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n1;" + strings.Repeat("e", 5000) + "\r\nx\r\n0\r\n\r\n", err: ErrProtocol, errText: "chunk-size line longer than 4096 bytes"},
	{name: "chunk line too long unterminated", in: "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n1;" + strings.Repeat("e", 5000), err: ErrProtocol, errText: "chunk-size line longer than 4096 bytes"},
	{name: "trailer without colon", in: "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n0\r\nbogus\r\n\r\n", err: ErrProtocol, errText: `trailer line "bogus" is not a field`},
	{name: "chunked over maxBody", in: "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n6\r\n world\r\n0\r\n\r\n", maxBody: 10, err: ErrBodyTooLarge},
	{name: "chunked at maxBody", in: "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n6\r\n world\r\n0\r\n\r\n", maxBody: 11, status: 200, body: "hello world"},
	{name: "chunked EOF in data", in: "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhel", err: io.ErrUnexpectedEOF},
	{name: "chunked EOF before last chunk", in: "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n", err: io.ErrUnexpectedEOF},
	{name: "chunked EOF in trailer", in: "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n", err: io.ErrUnexpectedEOF},

	// Close-delimited bodies and Connection.
	{name: "close delimited", in: "HTTP/1.1 200 OK\r\n\r\nuntil the end", status: 200, body: "until the end", close: true, eof: true},
	{name: "close delimited empty", in: "HTTP/1.1 200 OK\r\n\r\n", status: 200, close: true, eof: true},
	{name: "HTTP/1.0 no CL", in: "HTTP/1.0 200 OK\r\n\r\nold", status: 200, body: "old", close: true, eof: true},
	{name: "close delimited over maxBody", in: "HTTP/1.1 200 OK\r\n\r\n0123456789x", maxBody: 10, err: ErrBodyTooLarge},
	{name: "HTTP/1.0 CL", in: "HTTP/1.0 200 OK\r\nContent-Length: 2\r\n\r\nhi", status: 200, body: "hi", close: true},
	{name: "HTTP/1.0 keep-alive", in: "HTTP/1.0 200 OK\r\nConnection: Keep-Alive\r\nContent-Length: 2\r\n\r\nhi", status: 200, body: "hi"},
	{name: "HTTP/1.0 keep-alive and close", in: "HTTP/1.0 200 OK\r\nConnection: keep-alive, close\r\nContent-Length: 2\r\n\r\nhi", status: 200, body: "hi", close: true},
	{name: "close token in list", in: "HTTP/1.1 200 OK\r\nConnection: upgrade, Close\r\nContent-Length: 2\r\n\r\nhi", status: 200, body: "hi", close: true},
	{name: "close not a token", in: "HTTP/1.1 200 OK\r\nConnection: closed\r\nContent-Length: 2\r\n\r\nhi", status: 200, body: "hi"},
	{name: "HEAD close", in: "HTTP/1.1 200 OK\r\nConnection: close\r\n\r\n", head: true, status: 200, close: true},
	{name: "EOF in head", in: "HTTP/1.1 200 OK\r\nContent-Le", err: io.ErrUnexpectedEOF},
	{name: "EOF at once", in: "", err: io.ErrUnexpectedEOF},
}

func checkCase(t *testing.T, c tcase, r result) {
	t.Helper()
	if c.err != nil {
		if !errors.Is(r.err, c.err) {
			t.Fatalf("err = %v, want %v", r.err, c.err)
		}
		if c.errText != "" && !strings.Contains(r.err.Error(), c.errText) {
			t.Fatalf("err = %q, want it to contain %q", r.err, c.errText)
		}
		if errors.Is(r.err, ErrBodyTooLarge) && errors.Is(r.err, ErrProtocol) {
			t.Fatalf("ErrBodyTooLarge must not wrap ErrProtocol")
		}
		return
	}
	if r.err != nil || !r.done {
		t.Fatalf("done=%v err=%v, want done", r.done, r.err)
	}
	if r.status != c.status || r.close != c.close || r.body != c.body || r.bodyLen != int64(len(c.body)) {
		t.Fatalf("got status=%d close=%v bodyLen=%d body=%q, want %d %v %d %q",
			r.status, r.close, r.bodyLen, r.body, c.status, c.close, len(c.body), c.body)
	}
}

func TestTable(t *testing.T) {
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			checkCase(t, c, whole(t, c.head, c.maxBody, c.in))
		})
	}
}

const next = "HTTP/1.1 200 OK\r\nContent-Length: 4\r\n\r\nnext"

// TestSplits feeds every valid case (and every error case) in every 2-way
// split and in random small pieces, followed by the start of a next
// response when the response is self-delimited.
func TestSplits(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			in := c.in
			if c.err == nil && !c.eof {
				in += next
			}
			check := func(pieces []int) {
				t.Helper()
				var p Parser
				r := parse(t, &p, c.head, c.maxBody, []byte(in), pieces)
				c := c
				c.errText = "" // fail-fast errors quote only what had arrived
				checkCase(t, c, r)
				if c.err == nil && r.n != len(c.in) {
					t.Fatalf("pieces %v: consumed %d, response is %d bytes", pieces, r.n, len(c.in))
				}
			}
			step := 1
			if len(in) > 2000 {
				step = 97 // the MaxHead cases: keep the test quick
			}
			for i := 0; i <= len(in); i += step {
				check([]int{i})
			}
			for range 50 {
				var pieces []int
				for sum := 0; sum < len(in); {
					k := 1 + rng.IntN(8)
					if len(in) > 2000 {
						k = 1 + rng.IntN(4000)
					}
					pieces = append(pieces, k)
					sum += k
				}
				check(pieces)
			}
		})
	}
}

// TestFailFast: a server that sends a short non-HTTP greeting and then
// waits must fail on the bytes already received.
func TestFailFast(t *testing.T) {
	for _, in := range []string{"x", "H", "HTTP/2", "SSH-", "HTTP/1.1 200 OK\r\nbad line\r\n", "\x16\x03\x01"} {
		var p Parser
		p.Reset(false, 0)
		_, _, err := p.Feed([]byte(in))
		if in == "H" {
			if err != nil {
				t.Fatalf("%q: a prefix of HTTP/1. must wait, got %v", in, err)
			}
			continue
		}
		if !errors.Is(err, ErrProtocol) {
			t.Fatalf("%q: err = %v, want ErrProtocol at once", in, err)
		}
		if _, _, err2 := p.Feed([]byte(in)); err2 != err {
			t.Fatalf("%q: error not sticky: %v", in, err2)
		}
	}
}

// TestProgress: body bytes are consumed as they arrive, so a caller with a
// small fixed buffer never fills it.
func TestProgress(t *testing.T) {
	var p Parser
	p.Reset(false, 0)
	n, done, err := p.Feed([]byte("HTTP/1.1 200 OK\r\nContent-Length: 1000000\r\n\r\n"))
	if err != nil || done || n == 0 {
		t.Fatalf("head: n=%d done=%v err=%v", n, done, err)
	}
	chunk := bytes.Repeat([]byte("a"), 4096)
	total := 0
	for total < 1000000 {
		b := chunk[:min(len(chunk), 1000000-total)]
		n, done, err = p.Feed(b)
		if err != nil || n != len(b) {
			t.Fatalf("body: n=%d of %d err=%v", n, len(b), err)
		}
		total += n
	}
	if !done || p.BodyLen != 1000000 || len(p.Body) != 0 {
		t.Fatalf("done=%v BodyLen=%d kept=%d", done, p.BodyLen, len(p.Body))
	}
}

// TestHeadCallback: the callback sees the final head only, and the kept
// prefix is bounded by its answer.
func TestHeadCallback(t *testing.T) {
	in := "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 201 Created\r\nContent-Length: 10\r\n\r\n0123456789"
	var p Parser
	var calls int
	var gotHead string
	p.Head = func(status int, head []byte) int {
		calls++
		gotHead = fmt.Sprint(status, " ", string(head))
		return 4
	}
	p.Reset(false, 0)
	n, done, err := p.Feed([]byte(in))
	if err != nil || !done || n != len(in) {
		t.Fatalf("n=%d done=%v err=%v", n, done, err)
	}
	if calls != 1 || gotHead != "201 HTTP/1.1 201 Created\r\nContent-Length: 10\r\n\r\n" {
		t.Fatalf("calls=%d head=%q", calls, gotHead)
	}
	if string(p.Body) != "0123" || p.BodyLen != 10 {
		t.Fatalf("Body=%q BodyLen=%d", p.Body, p.BodyLen)
	}
	// Reset keeps the capacity but not the bytes.
	p.Head = nil
	p.Reset(false, 0)
	if len(p.Body) != 0 || cap(p.Body) == 0 {
		t.Fatalf("after Reset len=%d cap=%d", len(p.Body), cap(p.Body))
	}
}

func TestZeroValue(t *testing.T) {
	var p Parser
	p.Reset(false, 0)
	if done, err := p.EOF(); done || err != io.ErrUnexpectedEOF {
		t.Fatalf("EOF on nothing: done=%v err=%v", done, err)
	}
}

func TestNoAllocs(t *testing.T) {
	var p Parser
	p.Head = func(int, []byte) int { return 64 }
	for _, in := range [][]byte{[]byte(benchCL), []byte(benchChunked)} {
		allocs := testing.AllocsPerRun(100, func() {
			p.Reset(false, 1<<20)
			if _, done, err := p.Feed(in); !done || err != nil {
				t.Fatal(done, err)
			}
		})
		if allocs != 0 {
			t.Fatalf("%d allocs per response", int(allocs))
		}
	}
}

// genResponse draws a valid response (with interim 1xx heads), its request
// method, and whether it is delimited by the close.
func genResponse(t *rapid.T) (wire []byte, head bool, byClose bool) {
	var w bytes.Buffer
	eol := func() string { return rapid.SampledFrom([]string{"\r\n", "\r\n", "\n"}).Draw(t, "eol") }
	token := rapid.StringMatching(`[A-Za-z][A-Za-z0-9-]{0,15}`)
	value := rapid.StringMatching(`[ -~]{0,40}`)
	fields := func() {
		for range rapid.IntRange(0, 4).Draw(t, "nfields") {
			name := token.Draw(t, "name")
			switch strings.ToLower(name) {
			case "content-length", "transfer-encoding", "connection", "trailer":
				name = "X-" + name
			}
			v := strings.Trim(value.Draw(t, "value"), " ")
			fmt.Fprintf(&w, "%s:%s%s%s", name, rapid.SampledFrom([]string{"", " ", "  "}).Draw(t, "ows"), v, eol())
		}
	}
	for range rapid.IntRange(0, 2).Draw(t, "ninterim") {
		fmt.Fprintf(&w, "HTTP/1.1 %d Interim%s", rapid.SampledFrom([]int{100, 102, 103}).Draw(t, "interim"), eol())
		fields()
		w.WriteString(eol())
	}
	minor := rapid.IntRange(0, 1).Draw(t, "minor")
	status := rapid.OneOf(rapid.SampledFrom([]int{200, 204, 301, 304, 404, 500}), rapid.IntRange(200, 999)).Draw(t, "status")
	head = rapid.Bool().Draw(t, "head")
	framing := rapid.SampledFrom([]string{"cl", "chunked", "close"}).Draw(t, "framing")
	if minor == 0 && framing == "chunked" {
		framing = "cl" // net/http ignores Transfer-Encoding on HTTP/1.0; see TestTable for ours
	}
	body := rapid.SliceOfN(rapid.Byte(), 0, 300).Draw(t, "body")
	fmt.Fprintf(&w, "HTTP/1.%d %d%s%s", minor, status, rapid.SampledFrom([]string{"", " ", " Some Reason"}).Draw(t, "reason"), eol())
	fields()
	switch rapid.IntRange(0, 3).Draw(t, "conn") {
	case 1:
		w.WriteString("Connection: close" + eol())
	case 2:
		w.WriteString("Connection: keep-alive" + eol())
	case 3:
		w.WriteString("connection: Upgrade, Keep-Alive" + eol())
	}
	noBody := head || status == 204 || status == 304
	switch framing {
	case "cl":
		fmt.Fprintf(&w, "Content-Length: %d%s", len(body), eol())
	case "chunked":
		w.WriteString(rapid.SampledFrom([]string{"Transfer-Encoding: chunked", "transfer-encoding: Chunked"}).Draw(t, "te") + eol())
	}
	fields()
	w.WriteString(eol())
	if noBody {
		return w.Bytes(), head, false
	}
	switch framing {
	case "cl":
		w.Write(body)
	case "close":
		w.Write(body)
		return w.Bytes(), head, true
	case "chunked":
		for rest := body; len(rest) > 0; {
			k := rapid.IntRange(1, len(rest)).Draw(t, "chunk")
			size := fmt.Sprintf("%x", k)
			if rapid.Bool().Draw(t, "upper") {
				size = strings.ToUpper(size)
			}
			fmt.Fprintf(&w, "%s%s\r\n", size, rapid.SampledFrom([]string{"", ";ext", ";a=b;c=\"d\""}).Draw(t, "ext"))
			w.Write(rest[:k])
			w.WriteString("\r\n")
			rest = rest[k:]
		}
		w.WriteString("0\r\n")
		if rapid.Bool().Draw(t, "trailer") {
			w.WriteString("X-Checksum: abc\r\n")
		}
		w.WriteString("\r\n") // net/http wants CRLF to end the trailer
	}
	return w.Bytes(), head, false
}

// oracle reads the response with net/http, skipping 1xx heads as its
// Transport does.
func oracle(t *rapid.T, wire []byte, head bool) (status int, body []byte, close bool) {
	method := "GET"
	if head {
		method = "HEAD"
	}
	req, _ := http.NewRequest(method, "http://127.0.0.1/", nil)
	br := bufio.NewReader(bytes.NewReader(wire))
	for {
		resp, err := http.ReadResponse(br, req)
		if err != nil {
			t.Fatalf("net/http rejects the generated response: %v\n%q", err, wire)
		}
		b, err := io.ReadAll(resp.Body)
		if err != nil {
			t.Fatalf("net/http body: %v\n%q", err, wire)
		}
		if resp.StatusCode >= 200 {
			return resp.StatusCode, b, resp.Close
		}
	}
}

func TestAgainstNetHTTP(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		wire, head, byClose := genResponse(t)
		status, body, close := oracle(t, wire, head)
		in := wire
		if !byClose {
			in = append(append([]byte(nil), wire...), next...)
		}
		var pieces []int
		for range rapid.IntRange(0, 20).Draw(t, "npieces") {
			pieces = append(pieces, rapid.IntRange(1, 64).Draw(t, "piece"))
		}
		var p Parser
		r := parse(t, &p, head, 0, in, pieces)
		if r.err != nil || !r.done {
			t.Fatalf("done=%v err=%v\n%q", r.done, r.err, wire)
		}
		if r.n != len(wire) {
			t.Fatalf("consumed %d, response is %d bytes\n%q", r.n, len(wire), wire)
		}
		if r.status != status || r.body != string(body) || r.bodyLen != int64(len(body)) || r.close != close {
			t.Fatalf("got status=%d close=%v bodyLen=%d, net/http %d %v %d\n%q",
				r.status, r.close, r.bodyLen, status, close, len(body), wire)
		}
	})
}

// FuzzFeed feeds arbitrary bytes in arbitrary splits and checks the Feed
// contract, and that the split does not change the outcome.
func FuzzFeed(f *testing.F) {
	for _, c := range cases {
		if len(c.in) < 4096 {
			f.Add([]byte(c.in+next), uint64(0x0123456789abcdef), c.head, c.maxBody)
		}
	}
	f.Fuzz(func(t *testing.T, in []byte, split uint64, head bool, maxBody int64) {
		if maxBody < 0 {
			maxBody = -maxBody
		}
		var pieces []int
		for s := split; s != 0; s >>= 4 {
			pieces = append(pieces, 1+int(s&15))
		}
		var p1, p2 Parser
		one := parse(t, &p1, head, maxBody, in, nil)
		two := parse(t, &p2, head, maxBody, in, pieces)
		if one.done != two.done || one.n != two.n && one.done {
			t.Fatalf("split changed the outcome: whole %+v, pieces %v %+v", one, pieces, two)
		}
		if class(one.err) != class(two.err) {
			t.Fatalf("split changed the error: whole %v, pieces %v %v", one.err, pieces, two.err)
		}
		if one.done {
			if one.status < 100 || one.status > 999 {
				t.Fatalf("done with status %d", one.status)
			}
			if one.status != two.status || one.close != two.close || one.bodyLen != two.bodyLen || one.body != two.body {
				t.Fatalf("split changed the result: whole %+v, pieces %v %+v", one, pieces, two)
			}
			if maxBody > 0 && one.bodyLen > maxBody {
				t.Fatalf("body %d over limit %d", one.bodyLen, maxBody)
			}
		}
	})
}

func class(err error) string {
	switch {
	case err == nil:
		return "nil"
	case errors.Is(err, ErrProtocol):
		return "protocol"
	case errors.Is(err, ErrBodyTooLarge):
		return "too large"
	case err == io.ErrUnexpectedEOF:
		return "eof"
	}
	return "other: " + err.Error()
}

const benchCL = "HTTP/1.1 200 OK\r\nServer: nginx\r\nDate: Sun, 29 Nov 2026 22:00:00 GMT\r\nContent-Type: application/json\r\nContent-Length: 27\r\n\r\n{\"ok\":true,\"id\":1234567890}"

const benchChunked = "HTTP/1.1 200 OK\r\nServer: nginx\r\nDate: Sun, 29 Nov 2026 22:00:00 GMT\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n10\r\n{\"ok\":true,\"id\":\r\nb\r\n1234567890}\r\n0\r\n\r\n"

func BenchmarkFeed(b *testing.B) {
	for _, bc := range []struct{ name, in string }{{"content-length", benchCL}, {"chunked", benchChunked}} {
		b.Run(bc.name, func(b *testing.B) {
			in := []byte(bc.in)
			var p Parser
			b.SetBytes(int64(len(in)))
			b.ReportAllocs()
			for b.Loop() {
				p.Reset(false, 1<<20)
				if n, done, err := p.Feed(in); n != len(in) || !done || err != nil {
					b.Fatal(n, done, err)
				}
			}
		})
	}
}

// TestDroppedHeadBytes: a caller that drops unconsumed head bytes gets an
// error, not a panic on its event-loop goroutine.
func TestDroppedHeadBytes(t *testing.T) {
	var p Parser
	p.Reset(false, 0)
	if n, _, err := p.Feed([]byte("HTTP/1.1 200 OK\r\nA: b\r\n")); n != 0 || err != nil {
		t.Fatalf("n=%d err=%v", n, err)
	}
	if _, _, err := p.Feed([]byte("HTTP/1.1")); err == nil || errors.Is(err, ErrProtocol) {
		t.Fatalf("err = %v, want a caller error", err)
	}
}
