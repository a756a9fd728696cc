// Package cookiejar is a session's HTTP cookie store (RFC 6265) made for a
// load generator's loop: a session keeps its few cookies in a slice, a
// response's Set-Cookie is parsed once when it arrives, and writing the
// Cookie header of a request appends to the caller's buffer without
// allocating, nothing at all when the session holds no cookie.
//
// The rules kept are RFC 6265's for a user agent: domain (host-only, or
// the Domain attribute's name and its subdomains), path (the default path
// and path-match), expiry (Max-Age before Expires; a date in the past
// deletes), Secure (sent over https only) and HttpOnly (stored and sent:
// there are no scripts here to hide it from). SameSite is ignored: every
// request of a session is same-site to itself. There is no public suffix
// list: a Domain attribute naming a public suffix ("com") is refused only
// when it holds no dot.
package cookiejar

import (
	"bytes"
	"slices"
	"strings"
)

// Limits keep a misbehaving server from growing a session without bound.
const (
	MaxCookies     = 64   // per jar; the oldest is evicted past it
	MaxCookieBytes = 4096 // name + value; a larger cookie is ignored
)

// Cookie is one stored cookie.
type Cookie struct {
	Name, Value string
	Domain      string // lower case, without a leading dot
	HostOnly    bool   // sent to Domain only, not its subdomains
	Path        string
	Expires     int64 // Unix seconds; 0: a session cookie, kept for the jar's life
	Secure      bool
	HTTPOnly    bool
	created     uint64 // order of creation, for the Cookie header's order
}

// Jar is one session's cookies. The zero value is an empty jar, ready to
// use. Not safe for concurrent use (see Shared).
type Jar struct {
	cookies []Cookie
	clock   uint64
}

// Len is how many cookies the jar holds, expired ones included until the
// next request or response removes them.
func (j *Jar) Len() int { return len(j.cookies) }

// Reset empties the jar, keeping its storage for the next session.
func (j *Jar) Reset() { j.cookies, j.clock = j.cookies[:0], 0 }

// Cookies returns a copy of the unexpired cookies, in creation order.
func (j *Jar) Cookies(now int64) []Cookie {
	j.expire(now)
	return slices.Clone(j.cookies)
}

// Get returns the value of the cookie named name that a request to host
// and path would send (the longest path first, as in the header), and
// whether there is one. It serves captures of a cookie.
func (j *Jar) Get(name, host, path string, secure bool, now int64) (string, bool) {
	j.expire(now)
	best := -1
	for i := range j.cookies {
		c := &j.cookies[i]
		if c.Name == name && c.matches(host, path, secure) && (best < 0 || len(c.Path) > len(j.cookies[best].Path)) {
			best = i
		}
	}
	if best < 0 {
		return "", false
	}
	return j.cookies[best].Value, true
}

// AppendHeader appends the value of the Cookie header a request to host
// (no port, lower case) and path (its path, without the query) sends, over
// TLS when secure, and reports whether any cookie matched. With none, dst
// is returned as it was.
func (j *Jar) AppendHeader(dst []byte, host string, path []byte, secure bool, now int64) ([]byte, bool) {
	if len(j.cookies) == 0 {
		return dst, false
	}
	j.expire(now)
	j.sortForHeader()
	matched := false
	for i := range j.cookies {
		c := &j.cookies[i]
		if !c.matchesBytes(host, path, secure) {
			continue
		}
		if matched {
			dst = append(dst, "; "...)
		}
		dst = append(dst, c.Name...)
		dst = append(dst, '=')
		dst = append(dst, c.Value...)
		matched = true
	}
	return dst, matched
}

// sortForHeader orders cookies as RFC 6265 §5.4 says: longer paths first,
// then earlier created. The slice stays sorted between changes, so a
// request's sort is a check.
func (j *Jar) sortForHeader() {
	less := func(a, b Cookie) int {
		if len(a.Path) != len(b.Path) {
			return len(b.Path) - len(a.Path)
		}
		if a.created < b.created {
			return -1
		}
		if a.created > b.created {
			return 1
		}
		return 0
	}
	if !slices.IsSortedFunc(j.cookies, less) {
		slices.SortStableFunc(j.cookies, less)
	}
}

func (j *Jar) expire(now int64) {
	j.cookies = slices.DeleteFunc(j.cookies, func(c Cookie) bool { return c.Expires != 0 && c.Expires <= now })
}

func (c *Cookie) matches(host, path string, secure bool) bool {
	return (secure || !c.Secure) && domainMatch(c, host) && pathMatch(c.Path, path)
}

func (c *Cookie) matchesBytes(host string, path []byte, secure bool) bool {
	return (secure || !c.Secure) && domainMatch(c, host) && pathMatchBytes(c.Path, path)
}

// domainMatch is RFC 6265 §5.1.3, with host-only cookies matching their
// host alone.
func domainMatch(c *Cookie, host string) bool {
	if c.HostOnly || host == c.Domain {
		return host == c.Domain
	}
	return len(host) > len(c.Domain) && strings.HasSuffix(host, c.Domain) && host[len(host)-len(c.Domain)-1] == '.' && !isIP(host)
}

// pathMatch is RFC 6265 §5.1.4.
func pathMatch(cookiePath, path string) bool {
	if path == "" {
		path = "/"
	}
	return path == cookiePath || strings.HasPrefix(path, cookiePath) &&
		(strings.HasSuffix(cookiePath, "/") || path[len(cookiePath)] == '/')
}

func pathMatchBytes(cookiePath string, path []byte) bool {
	if len(path) == 0 {
		return cookiePath == "/"
	}
	if len(path) < len(cookiePath) || string(path[:len(cookiePath)]) != cookiePath {
		return false
	}
	return len(path) == len(cookiePath) || cookiePath[len(cookiePath)-1] == '/' || path[len(cookiePath)] == '/'
}

// PathOf is a request-target's path: what precedes '?' or '#'.
func PathOf(target []byte) []byte {
	if i := bytes.IndexAny(target, "?#"); i >= 0 {
		return target[:i]
	}
	return target
}
