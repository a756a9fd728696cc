package digest

import (
	"crypto/md5" //nolint:gosec // RFC 7616 names MD5; servers still ask for it
	"crypto/sha256"
	"encoding/hex"
	"hash"
)

// Answerer answers one challenge for one user, request after request: the
// session's credentials and the challenge's fixed parts are hashed once,
// and each Append costs two hashes and no allocation. It counts its nonce
// uses (nc) itself. Not safe for concurrent use: one per session.
type Answerer struct {
	c      Challenge
	user   string
	nonce  []byte
	cnonce []byte
	nc     uint32
	ncHex  [8]byte
	h      hash.Hash
	ha1    []byte // hex
	sum    [sha256.Size]byte
	ha2    [2 * sha256.Size]byte
	resp   [2 * sha256.Size]byte
}

// NewAnswerer prepares answers to c for username and password. cnonce is
// the client nonce the answers carry (with qop): any unguessable text of
// token characters; a session keeps one for its nonce.
func NewAnswerer(c Challenge, username, password, cnonce string) *Answerer {
	a := &Answerer{c: c, user: username, nonce: []byte(c.Nonce), cnonce: []byte(cnonce), h: newHash(c.Algorithm)}
	a.ha1 = ha1(a.h, c.Algorithm, username, c.Realm, password, c.Nonce, cnonce)
	return a
}

// Challenge is the challenge a answers.
func (a *Answerer) Challenge() Challenge { return a.c }

// Append appends the value of the Authorization header for the request
// method uri (its request-target, exactly as sent) to dst.
func (a *Answerer) Append(dst, method, uri []byte) []byte {
	a.nc++
	nc := appendNC(a.ncHex[:0], a.nc)

	a.h.Reset()
	a.h.Write(method)
	a.h.Write(colon)
	a.h.Write(uri)
	hex.Encode(a.ha2[:], a.h.Sum(a.sum[:0]))
	n := 2 * a.h.Size()

	a.h.Reset()
	a.h.Write(a.ha1)
	a.h.Write(colon)
	a.h.Write(a.nonce)
	a.h.Write(colon)
	if a.c.QOP {
		a.h.Write(nc)
		a.h.Write(colon)
		a.h.Write(a.cnonce)
		a.h.Write(colon)
		a.h.Write(qopAuth)
		a.h.Write(colon)
	}
	a.h.Write(a.ha2[:n])
	hex.Encode(a.resp[:], a.h.Sum(a.sum[:0]))

	dst = append(dst, "Digest username="...)
	dst = appendQuoted(dst, a.user)
	dst = append(dst, ", realm="...)
	dst = appendQuoted(dst, a.c.Realm)
	dst = append(dst, ", uri="...)
	dst = appendQuoted(dst, uri)
	dst = append(dst, ", algorithm="...)
	dst = append(dst, a.c.Algorithm.String()...)
	dst = append(dst, ", nonce="...)
	dst = appendQuoted(dst, a.c.Nonce)
	if a.c.QOP {
		dst = append(dst, ", nc="...)
		dst = append(dst, nc...)
		dst = append(dst, ", cnonce="...)
		dst = appendQuoted(dst, a.cnonce)
		dst = append(dst, ", qop=auth"...)
	}
	dst = append(dst, ", response=\""...)
	dst = append(dst, a.resp[:n]...)
	dst = append(dst, '"')
	if a.c.Opaque != "" {
		dst = append(dst, ", opaque="...)
		dst = appendQuoted(dst, a.c.Opaque)
	}
	return dst
}

// Response is the request-digest RFC 7616 §3.4.1 defines, in lower-case
// hex: what a server checks an Authorization's response against. qop is
// "auth" or "" (RFC 2069's form, without nc and cnonce).
func Response(alg Algorithm, username, realm, password, method, uri, nonce, nc, cnonce, qop string) string {
	h := newHash(alg)
	ha1 := ha1(h, alg, username, realm, password, nonce, cnonce)
	ha2 := hexHash(h, method+":"+uri)
	if qop == "" {
		return hexHash(h, string(ha1)+":"+nonce+":"+ha2)
	}
	return hexHash(h, string(ha1)+":"+nonce+":"+nc+":"+cnonce+":"+qop+":"+ha2)
}

var (
	colon   = []byte(":")
	qopAuth = []byte("auth")
)

func newHash(alg Algorithm) hash.Hash {
	if alg == SHA256 || alg == SHA256Sess {
		return sha256.New()
	}
	return md5.New() //nolint:gosec // see the import
}

// ha1 is H(username:realm:password), or for the -sess algorithms
// H(H(username:realm:password):nonce:cnonce), in hex.
func ha1(h hash.Hash, alg Algorithm, username, realm, password, nonce, cnonce string) []byte {
	x := hexHash(h, username+":"+realm+":"+password)
	if alg.sess() {
		x = hexHash(h, x+":"+nonce+":"+cnonce)
	}
	return []byte(x)
}

func hexHash(h hash.Hash, s string) string {
	h.Reset()
	h.Write([]byte(s))
	return hex.EncodeToString(h.Sum(nil))
}

// appendNC appends n as the 8 lower-case hex digits nc is written with.
func appendNC(dst []byte, n uint32) []byte {
	const digits = "0123456789abcdef"
	for shift := 28; shift >= 0; shift -= 4 {
		dst = append(dst, digits[n>>uint(shift)&0xf])
	}
	return dst
}

// appendQuoted appends s as an RFC 9110 quoted-string.
func appendQuoted[T string | []byte](dst []byte, s T) []byte {
	dst = append(dst, '"')
	for i := 0; i < len(s); i++ {
		if s[i] == '"' || s[i] == '\\' {
			dst = append(dst, '\\')
		}
		dst = append(dst, s[i])
	}
	return append(dst, '"')
}
