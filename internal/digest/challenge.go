// Package digest is HTTP Digest access authentication (RFC 7616) for a load
// generator: it reads a server's WWW-Authenticate challenge once and then
// answers it for every request of a session by appending the Authorization
// value to a caller's buffer, with no allocation per request. MD5 and
// SHA-256 (and their -sess variants) with qop=auth are supported; auth-int,
// which hashes the whole body, and SHA-512-256 are not.
package digest

import (
	"errors"
	"strings"
)

// Algorithm is a challenge's hash.
type Algorithm uint8

// The algorithms a Challenge may name.
const (
	MD5 Algorithm = iota + 1
	MD5Sess
	SHA256
	SHA256Sess
)

func (a Algorithm) String() string {
	switch a {
	case MD5:
		return "MD5"
	case MD5Sess:
		return "MD5-sess"
	case SHA256:
		return "SHA-256"
	case SHA256Sess:
		return "SHA-256-sess"
	}
	return "unknown"
}

func (a Algorithm) sess() bool { return a == MD5Sess || a == SHA256Sess }

// Challenge is one Digest challenge of a WWW-Authenticate header.
type Challenge struct {
	Realm     string
	Nonce     string
	Opaque    string // "" when the server sent none
	Algorithm Algorithm
	// QOP is true when the server offered qop=auth; false when it sent no
	// qop (RFC 2069's form, still answered).
	QOP   bool
	Stale bool // the nonce expired: answer again with the same credentials
}

// Errors ParseChallenge returns.
var (
	ErrNoDigest     = errors.New("digest: the header holds no Digest challenge")
	ErrUnsupported  = errors.New("digest: the challenge asks for what is not supported (an algorithm other than MD5 or SHA-256, qop without auth, or -sess without qop)")
	ErrMalformed    = errors.New("digest: malformed challenge")
	ErrMissingNonce = errors.New("digest: the challenge has no nonce")
)

// ParseChallenge reads the first Digest challenge of a WWW-Authenticate
// value, which may list several challenges ("Basic realm=x, Digest ...").
// Among several Digest challenges (one per algorithm, RFC 7616 §3.7) it
// takes the first it supports, preferring none: servers list their
// preference first.
func ParseChallenge(header string) (Challenge, error) {
	p := parser{s: header}
	found := false
	var firstErr error
	for !p.done() {
		scheme, ok := p.token()
		if !ok {
			return Challenge{}, ErrMalformed
		}
		params, err := p.params()
		if err != nil {
			return Challenge{}, err
		}
		if !strings.EqualFold(scheme, "digest") {
			continue
		}
		found = true
		c, err := challengeOf(params)
		if err == nil {
			return c, nil
		}
		if firstErr == nil {
			firstErr = err
		}
	}
	if !found {
		return Challenge{}, ErrNoDigest
	}
	return Challenge{}, firstErr
}

func challengeOf(params [][2]string) (Challenge, error) {
	c := Challenge{Algorithm: MD5}
	for _, kv := range params {
		k, v := kv[0], kv[1]
		switch strings.ToLower(k) {
		case "realm":
			c.Realm = v
		case "nonce":
			c.Nonce = v
		case "opaque":
			c.Opaque = v
		case "stale":
			c.Stale = strings.EqualFold(v, "true")
		case "algorithm":
			if c.Algorithm = algorithmOf(v); c.Algorithm == 0 {
				return Challenge{}, ErrUnsupported
			}
		case "qop":
			for _, q := range strings.Split(v, ",") {
				if strings.EqualFold(strings.TrimSpace(q), "auth") {
					c.QOP = true
				}
			}
			if !c.QOP {
				return Challenge{}, ErrUnsupported
			}
		}
	}
	if c.Nonce == "" {
		return Challenge{}, ErrMissingNonce
	}
	if c.Algorithm.sess() && !c.QOP {
		return Challenge{}, ErrUnsupported // -sess hashes a cnonce, which only qop sends
	}
	return c, nil
}

// algorithmOf reads an algorithm's name; 0 when it is not supported.
func algorithmOf(name string) Algorithm {
	switch strings.ToUpper(name) {
	case "MD5":
		return MD5
	case "MD5-SESS":
		return MD5Sess
	case "SHA-256":
		return SHA256
	case "SHA-256-SESS":
		return SHA256Sess
	}
	return 0
}

// parser walks a WWW-Authenticate value: challenges, each a scheme token
// followed by comma-separated auth-params (token = token / quoted-string).
type parser struct {
	s string
	i int
}

func (p *parser) done() bool { p.skip(); return p.i >= len(p.s) }

func (p *parser) skip() {
	for p.i < len(p.s) && (p.s[p.i] == ' ' || p.s[p.i] == '\t' || p.s[p.i] == ',') {
		p.i++
	}
}

func (p *parser) spaces() {
	for p.i < len(p.s) && (p.s[p.i] == ' ' || p.s[p.i] == '\t') {
		p.i++
	}
}

func (p *parser) token() (string, bool) {
	p.skip()
	start := p.i
	for p.i < len(p.s) && isTokenChar(p.s[p.i]) {
		p.i++
	}
	return p.s[start:p.i], p.i > start
}

// params reads auth-params until the next challenge's scheme (a token not
// followed by '=') or the end.
func (p *parser) params() ([][2]string, error) {
	var out [][2]string
	for {
		p.skip()
		save := p.i
		name, ok := p.token()
		if !ok {
			if p.i >= len(p.s) {
				return out, nil
			}
			return nil, ErrMalformed
		}
		p.spaces()
		if p.i >= len(p.s) || p.s[p.i] != '=' {
			p.i = save // the next challenge's scheme
			return out, nil
		}
		p.i++
		p.spaces()
		val, err := p.value()
		if err != nil {
			return nil, err
		}
		out = append(out, [2]string{name, val})
	}
}

func (p *parser) value() (string, error) {
	if p.i < len(p.s) && p.s[p.i] == '"' {
		p.i++
		var b strings.Builder
		for p.i < len(p.s) {
			c := p.s[p.i]
			switch c {
			case '"':
				p.i++
				return b.String(), nil
			case '\\':
				p.i++
				if p.i >= len(p.s) {
					return "", ErrMalformed
				}
				c = p.s[p.i]
			}
			b.WriteByte(c)
			p.i++
		}
		return "", ErrMalformed
	}
	start := p.i
	for p.i < len(p.s) && (isTokenChar(p.s[p.i]) || p.s[p.i] == '/') { // token68 values carry '/'
		p.i++
	}
	for p.i < len(p.s) && p.s[p.i] == '=' { // token68 padding
		p.i++
	}
	if p.i == start {
		return "", ErrMalformed
	}
	return p.s[start:p.i], nil
}

func isTokenChar(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0
}
