package run

import (
	"bytes"
	"fmt"
	"net"
	"net/url"
	"strings"

	"github.com/tressi/tressi/compile"
	"github.com/tressi/tressi/results"
)

// Redirects: a request with redirects = N (compile.Request.Redirects)
// follows up to N answers of 301, 302, 303, 307 or 308 with a Location,
// each hop a request of its own on the wire and the chain one row (the
// last answer's status; latency from the scheduled instant to it; bytes of
// every hop). Both engines ask the same questions here: is it a redirect,
// where does it lead (a target of the plan, or refused), with which method
// and body, and with which credentials.

// IsRedirect says whether status is one that redirects is followed on.
func IsRedirect(status int) bool {
	switch status {
	case 301, 302, 303, 307, 308:
		return true
	}
	return false
}

// RedirectMethod is the method of the hop a status redirects method to,
// and whether the body goes along (RFC 9110 §15.4, as browsers do it, the
// Fetch standard's rules): 303 turns anything but HEAD into a GET without
// a body; 301 and 302 turn a POST into a GET without a body and keep other
// methods; 307 and 308 keep the method and the body.
func RedirectMethod(status int, method string) (string, bool) {
	switch {
	case status == 303 && method != "HEAD":
		return "GET", false
	case status == 303:
		return method, false
	case (status == 301 || status == 302) && method == "POST":
		return "GET", false
	}
	return method, true
}

// ErrRedirectRefused is a redirect to an origin that is not a target of
// the plan: load only goes where the plan says.
type ErrRedirectRefused struct{ Location string }

func (e *ErrRedirectRefused) Error() string {
	return fmt.Sprintf("redirect to %s refused: its origin is not a target of the plan (add a target with that url to follow it)", e.Location)
}

// ErrTooManyRedirects is a chain that was still redirecting after its
// request's redirects hops.
type ErrTooManyRedirects struct {
	Hops     int
	Location string
}

func (e *ErrTooManyRedirects) Error() string {
	return fmt.Sprintf("still redirected (to %s) after %d redirects: raise redirects, or look for a redirect loop", e.Location, e.Hops)
}

// RedirectOrigins are the plan's targets as a Location names them:
// scheme, lower-cased host, port.
type RedirectOrigins struct {
	origins []redirectOrigin
}

type redirectOrigin struct {
	scheme, host, port string
	hostHeader         string // the Host a hop to it carries
}

// NewRedirectOrigins reads s's targets' origins.
func NewRedirectOrigins(s *compile.Schedule) RedirectOrigins {
	var o RedirectOrigins
	for _, t := range s.Targets {
		host, port := splitAuthority(t.Host, t.Scheme)
		o.origins = append(o.origins, redirectOrigin{scheme: t.Scheme, host: host, port: port, hostHeader: t.Host})
	}
	return o
}

// HostHeader is the Host header a hop to target t carries.
func (o *RedirectOrigins) HostHeader(t int) string { return o.origins[t].hostHeader }

// splitAuthority is an authority's lower-cased host and its port, the
// scheme's default when it names none.
func splitAuthority(authority, scheme string) (string, string) {
	host, port, err := net.SplitHostPort(authority)
	if err != nil {
		host, port = authority, ""
	}
	if port == "" {
		port = "80"
		if scheme == "https" {
			port = "443"
		}
	}
	return strings.ToLower(strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")), port
}

// Resolve is where location, the answer of a request to target from for
// the request-target reqTarget, leads: the target it names and the hop's
// request-target (path and query, the fragment cut), appended to dst. ok
// is false for an origin outside the plan's targets or a Location that is
// no URL.
func (o *RedirectOrigins) Resolve(from int, reqTarget, location, dst []byte) (to int, path []byte, ok bool) {
	loc := location
	if i := bytes.IndexByte(loc, '#'); i >= 0 {
		loc = loc[:i]
	}
	if !printable(loc) || len(loc) == 0 {
		return -1, dst, false
	}
	if loc[0] == '/' && (len(loc) == 1 || loc[1] != '/') {
		return from, append(dst, loc...), true // the common case: a path on the same origin
	}
	scheme, rest := o.origins[from].scheme, loc
	if i := bytes.Index(loc, []byte("://")); i > 0 && isScheme(loc[:i]) {
		scheme, rest = strings.ToLower(string(loc[:i])), loc[i+1:]
	}
	if bytes.HasPrefix(rest, []byte("//")) {
		return o.absolute(scheme, rest[2:], dst)
	}
	if len(rest) != len(loc) {
		return -1, dst, false // "http:path": no authority
	}
	return o.relative(from, reqTarget, loc, dst)
}

// absolute resolves the authority and path of an absolute Location.
func (o *RedirectOrigins) absolute(scheme string, rest, dst []byte) (int, []byte, bool) {
	end := bytes.IndexAny(rest, "/?")
	if end < 0 {
		end = len(rest)
	}
	authority := rest[:end]
	if at := bytes.LastIndexByte(authority, '@'); at >= 0 {
		authority = authority[at+1:] // credentials in a Location are never sent
	}
	host, port := splitAuthority(string(authority), scheme)
	to := -1
	for i := range o.origins {
		if g := &o.origins[i]; g.scheme == scheme && g.host == host && g.port == port {
			to = i
			break
		}
	}
	if to < 0 {
		return -1, dst, false
	}
	path := rest[end:]
	if len(path) == 0 || path[0] == '?' {
		dst = append(dst, '/')
	}
	return to, append(dst, path...), true
}

// relative resolves a relative reference ("next", "../a", "?page=2")
// against the request's path (RFC 3986 §5.2), through net/url: rare
// enough that its allocations do not matter.
func (o *RedirectOrigins) relative(from int, reqTarget, loc, dst []byte) (int, []byte, bool) {
	base, err := url.ParseRequestURI(string(reqTarget))
	if err != nil {
		return -1, dst, false
	}
	ref, err := url.Parse(string(loc))
	if err != nil || ref.Scheme != "" || ref.Host != "" || ref.Opaque != "" {
		return -1, dst, false // another scheme ("mailto:"), never a target
	}
	path := base.ResolveReference(ref).RequestURI()
	if !strings.HasPrefix(path, "/") || !printable([]byte(path)) {
		return -1, dst, false
	}
	return from, append(dst, path...), true
}

func isScheme(b []byte) bool {
	for i, c := range b {
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z':
		case i > 0 && (c >= '0' && c <= '9' || c == '+' || c == '-' || c == '.'):
		default:
			return false
		}
	}
	return len(b) > 0
}

// printable: no byte that would break a request line.
func printable(b []byte) bool {
	for _, c := range b {
		if c <= ' ' || c == 0x7f {
			return false
		}
	}
	return true
}

// RedirectHeaders are the fields a hop to another origin drops: the
// credentials of the first (RFC 9110 §15.4: a user agent must not leak
// them), and the plan's Cookie, which the jar replaces with what it holds
// for the new origin.
var redirectCrossDrop = []string{"authorization", "proxy-authorization", "cookie"}

// redirectBodyDrop are the fields of a body a hop without it drops.
var redirectBodyDrop = []string{"content-length", "content-type", "content-encoding", "transfer-encoding"}

// RedirectWire appends to dst the HTTP/1.1 request of the next hop, made
// from wire, the last hop's request without the jar's cookies: method
// and request-target path; host, when not "", replaces the Host field (a
// hop to another target); without keepBody the body and its fields go;
// cross drops the credentials (redirectCrossDrop).
func RedirectWire(dst, wire []byte, method string, path []byte, host string, keepBody, cross bool) []byte {
	headEnd := bytes.Index(wire, []byte("\r\n\r\n"))
	lineEnd := bytes.Index(wire, []byte("\r\n"))
	if headEnd < 0 || lineEnd < 0 {
		return append(dst, wire...)
	}
	line := wire[:lineEnd]
	version := line[bytes.LastIndexByte(line, ' ')+1:]
	dst = append(dst, method...)
	dst = append(dst, ' ')
	dst = append(dst, path...)
	dst = append(dst, ' ')
	dst = append(dst, version...)
	fields := wire[lineEnd+2 : headEnd+2]
	for len(fields) > 0 {
		end := bytes.Index(fields, []byte("\r\n"))
		field := fields[:end]
		fields = fields[end+2:]
		name := field
		if colon := bytes.IndexByte(field, ':'); colon >= 0 {
			name = field[:colon]
		}
		switch {
		case cross && fieldIn(name, redirectCrossDrop), !keepBody && fieldIn(name, redirectBodyDrop):
			continue
		case host != "" && fieldIs(name, "host"):
			dst = append(dst, "\r\nHost: "...)
			dst = append(dst, host...)
			continue
		}
		dst = append(dst, "\r\n"...)
		dst = append(dst, field...)
	}
	dst = append(dst, "\r\n\r\n"...)
	if keepBody {
		dst = append(dst, wire[headEnd+4:]...)
	}
	return dst
}

func fieldIn(name []byte, names []string) bool {
	for _, n := range names {
		if fieldIs(name, n) {
			return true
		}
	}
	return false
}

func fieldIs(name []byte, lower string) bool {
	return len(name) == len(lower) && strings.EqualFold(string(name), lower)
}

// RedirectStopped is the row of a chain that ended on a redirect it did
// not follow, for err (ErrTooManyRedirects, ErrRedirectRefused): the last
// answer arrived, so the row keeps its status and latency, with the
// error's kind; it counts as failed.
func (s *RowSink) RedirectStopped(pr *PreparedRequest, k uint64, scheduled, sent, done, out, in int64, status int, err error) results.Row {
	row := s.Outcome(pr, k, scheduled, sent, done, out, in, status, nil)
	if s.Ex.Aborted.Load() {
		return row
	}
	row.Error = results.RedirectRefused
	if _, ok := err.(*ErrTooManyRedirects); ok {
		row.Error = results.TooManyRedirects
	}
	if results.ExpectsStatus(pr.Spec.Expect, status) {
		s.Stats.Failed.Add(1) // not counted by Outcome, which saw an expected status
	}
	return row
}

// HopCounts are the redirects followed by endpoint name, nil when none.
func (ex *Executor) HopCounts(names []string) map[string]int64 {
	var m map[string]int64
	for i := range ex.Hops {
		if n := ex.Hops[i].Load(); n > 0 && i < len(names) {
			if m == nil {
				m = map[string]int64{}
			}
			m[names[i]] = n
		}
	}
	return m
}
