package testserver

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"strings"
)

// auth issues and checks the bearer tokens of /login and /me. A token is
// derived from the user name alone (base64url(user) "." HMAC), so the same
// user always gets the same token: a scenario's captured value is
// reproducible, and the server keeps no session state to grow under load.
type auth struct {
	key []byte
}

func newAuth(secret string) auth { return auth{key: []byte(secret)} }

// Token returns the token /login issues for user.
func (a auth) Token(user string) string {
	return base64.RawURLEncoding.EncodeToString([]byte(user)) + "." + a.mac(user)
}

// User returns the user a token was issued to, or false if the token was not
// issued by a server with this secret.
func (a auth) User(token string) (string, bool) {
	enc, mac, ok := strings.Cut(token, ".")
	if !ok {
		return "", false
	}
	raw, err := base64.RawURLEncoding.DecodeString(enc)
	if err != nil {
		return "", false
	}
	user := string(raw)
	if user == "" || !hmac.Equal([]byte(mac), []byte(a.mac(user))) {
		return "", false
	}
	return user, true
}

// mac is the first 128 bits of HMAC-SHA256(user), hex: enough that tokens
// cannot be guessed in a test, short enough to keep headers small.
func (a auth) mac(user string) string {
	h := hmac.New(sha256.New, a.key)
	h.Write([]byte(user))
	return hex.EncodeToString(h.Sum(nil)[:16])
}

// Token returns the token the server's /login issues for user, so tests can
// build an authenticated request without logging in first.
func (s *Server) Token(user string) string { return s.auth.Token(user) }
