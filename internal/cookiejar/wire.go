package cookiejar

import (
	"bytes"

	"github.com/tressi/tressi/h1"
)

// The loop's engines hold requests and response heads as HTTP/1.1 bytes
// (HTTP/2 requests are converted from them; HTTP/2 response fields are
// kept as "name: value" lines): these read and write cookies there.

var (
	crlf      = []byte("\r\n")
	cookieKey = []byte("cookie:")
)

// SetFromHead stores every Set-Cookie line of a response head (a status
// line, then "Name: value" lines) for a request to host and path. It
// returns how many it stored; a head without one costs a scan.
func (j *Jar) SetFromHead(head []byte, host string, path []byte, secure bool, now int64) int {
	n := 0
	for v := range h1.FieldValues(head, "set-cookie") {
		if j.SetCookie(string(v), host, string(path), secure, now) {
			n++
		}
	}
	return n
}

// AppendRequest appends to dst the HTTP/1.1 request req with the jar's
// cookies for host added: to the request's own Cookie header when it has
// one (a request carries at most one, RFC 6265 §5.4), else as a new
// Cookie header at the end of the head. When no cookie matches, or req is
// not a request head it can read, it returns dst untouched and false: the
// caller sends req as it is, at no cost.
func (j *Jar) AppendRequest(dst, req []byte, host string, secure bool, now int64) ([]byte, bool) {
	if len(j.cookies) == 0 {
		return dst, false
	}
	lineEnd := bytes.Index(req, crlf)
	headEnd := bytes.Index(req, []byte("\r\n\r\n"))
	if lineEnd < 0 || headEnd < lineEnd {
		return dst, false
	}
	target := requestTarget(req[:lineEnd])
	// Where the cookies go: the end of an existing Cookie line, or the
	// end of the head's last line.
	at, prefix := headEnd, "\r\nCookie: "
	for off := lineEnd + 2; off < headEnd; {
		end := off + bytes.Index(req[off:], crlf)
		if end-off > len(cookieKey) && bytes.EqualFold(req[off:off+len(cookieKey)], cookieKey) {
			at, prefix = end, "; "
			break
		}
		off = end + 2
	}
	start := len(dst)
	dst = append(dst, req[:at]...)
	dst = append(dst, prefix...)
	mark := len(dst)
	dst, ok := j.AppendHeader(dst, host, PathOf(target), secure, now)
	if !ok || len(dst) == mark {
		return dst[:start], false
	}
	return append(dst, req[at:]...), true
}

// RequestPath is the path of an HTTP/1.1 request's request-target (of an
// absolute-form target, its path): what cookies' paths are matched
// against and a Set-Cookie's default path comes from.
func RequestPath(req []byte) []byte {
	if i := bytes.Index(req, crlf); i >= 0 {
		req = req[:i]
	}
	return PathOf(requestTarget(req))
}

// requestTarget is the request-target of a request line "METHOD SP target
// SP HTTP/x"; the path of an absolute-form target.
func requestTarget(line []byte) []byte {
	sp := bytes.IndexByte(line, ' ')
	if sp < 0 {
		return nil
	}
	t := line[sp+1:]
	if sp = bytes.LastIndexByte(t, ' '); sp >= 0 {
		t = t[:sp]
	}
	if i := bytes.Index(t, []byte("://")); i >= 0 {
		t = t[i+3:]
		if s := bytes.IndexByte(t, '/'); s >= 0 {
			return t[s:]
		}
		return []byte("/")
	}
	return t
}
