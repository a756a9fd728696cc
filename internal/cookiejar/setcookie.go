package cookiejar

import (
	"net"
	"strconv"
	"strings"
	"time"
)

// SetCookie stores what one Set-Cookie header value says, for a response
// to a request to host (no port) and path, received at now (Unix seconds).
// A header the RFC says to ignore (no '=', an empty name, a Domain the
// host is not in) is ignored: it reports false. A Secure cookie is stored
// from plain http too, as RFC 6265 says (6265bis would refuse it), and
// sent over https only.
func (j *Jar) SetCookie(header, host, path string, _ bool, now int64) bool {
	c, ok := parseSetCookie(header, strings.ToLower(host), path, now)
	if !ok {
		return false
	}
	j.expire(now)
	for i := range j.cookies {
		o := &j.cookies[i]
		if o.Name == c.Name && o.Domain == c.Domain && o.Path == c.Path {
			if c.Expires != 0 && c.Expires <= now {
				j.cookies = append(j.cookies[:i], j.cookies[i+1:]...)
				return true
			}
			c.created = o.created
			*o = c
			return true
		}
	}
	if c.Expires != 0 && c.Expires <= now {
		return true // deletes a cookie the jar does not hold: nothing to do
	}
	if len(j.cookies) >= MaxCookies {
		j.evictOldest()
	}
	j.clock++
	c.created = j.clock
	j.cookies = append(j.cookies, c)
	return true
}

func (j *Jar) evictOldest() {
	oldest := 0
	for i := range j.cookies {
		if j.cookies[i].created < j.cookies[oldest].created {
			oldest = i
		}
	}
	j.cookies = append(j.cookies[:oldest], j.cookies[oldest+1:]...)
}

// parseSetCookie is RFC 6265 §5.2 and §5.3 for one header value.
func parseSetCookie(header, host, path string, now int64) (Cookie, bool) {
	pair, attrs, _ := strings.Cut(header, ";")
	name, value, ok := strings.Cut(pair, "=")
	name, value = strings.TrimSpace(name), strings.TrimSpace(value)
	if !ok || name == "" || len(name)+len(value) > MaxCookieBytes || !validCookieText(name) || !validCookieText(value) {
		return Cookie{}, false
	}
	c := Cookie{Name: name, Value: value}
	var maxAge, expires int64
	haveMaxAge := false
	domain := ""
	for attrs != "" {
		var av string
		av, attrs, _ = strings.Cut(attrs, ";")
		k, v, _ := strings.Cut(av, "=")
		k, v = strings.TrimSpace(k), strings.TrimSpace(v)
		switch strings.ToLower(k) {
		case "expires":
			if t, ok := parseCookieDate(v); ok {
				expires = t
			}
		case "max-age":
			if n, err := strconv.ParseInt(v, 10, 64); err == nil && (v[0] == '-' || v[0] >= '0' && v[0] <= '9') {
				haveMaxAge = true
				maxAge = n
			}
		case "domain":
			domain = strings.ToLower(strings.TrimPrefix(v, "."))
		case "path":
			if strings.HasPrefix(v, "/") {
				c.Path = v
			}
		case "secure":
			c.Secure = true
		case "httponly":
			c.HTTPOnly = true
		}
	}
	switch {
	case haveMaxAge && maxAge <= 0:
		c.Expires = -1 // earliest representable: already expired
	case haveMaxAge:
		c.Expires = now + min(maxAge, 400*24*3600) // RFC 6265bis caps at 400 days
	case expires != 0:
		c.Expires = expires
		if c.Expires <= now {
			c.Expires = -1
		}
	}
	if c.Expires < 0 {
		c.Expires = 1 // nonzero and in the past: deletes
	}
	if domain == "" {
		c.Domain, c.HostOnly = host, true
	} else {
		if !strings.Contains(domain, ".") && domain != host || isIP(host) && domain != host {
			return Cookie{}, false
		}
		c.Domain = domain
		probe := Cookie{Domain: domain}
		if !domainMatch(&probe, host) {
			return Cookie{}, false
		}
	}
	if c.Path == "" {
		c.Path = defaultPath(path)
	}
	return c, true
}

// defaultPath is RFC 6265 §5.1.4's default-path of a request path.
func defaultPath(path string) string {
	if !strings.HasPrefix(path, "/") {
		return "/"
	}
	i := strings.LastIndexByte(path, '/')
	if i == 0 {
		return "/"
	}
	return path[:i]
}

// validCookieText refuses controls (and so line breaks, which would split
// the request the cookie is sent in) and ';'.
func validCookieText(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 && c != '\t' || c == 0x7f || c == ';' {
			return false
		}
	}
	return true
}

func isIP(host string) bool { return net.ParseIP(host) != nil }

// cookieDateLayouts are the forms servers write Expires in: RFC 1123 (the
// one RFC 6265 asks for), its dashed Netscape variant, RFC 850 and asctime.
var cookieDateLayouts = []string{
	time.RFC1123, "Mon, 02-Jan-2006 15:04:05 MST", "Mon, 02 Jan 06 15:04:05 MST", time.RFC850, time.ANSIC,
	"Monday, 02-Jan-2006 15:04:05 MST",
}

func parseCookieDate(v string) (int64, bool) {
	for _, layout := range cookieDateLayouts {
		if t, err := time.Parse(layout, v); err == nil {
			if t.Year() < 1601 {
				return 0, false
			}
			return t.Unix(), true
		}
	}
	return 0, false
}
