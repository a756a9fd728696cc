package testserver

import (
	"bytes"
	"crypto/subtle"
	"encoding/base64"
	"strconv"
	"strings"
	"time"

	"github.com/valyala/fasthttp"

	"github.com/tressi/tressi/internal/digest"
)

// The routes behind HTTP authentication, in httpbin's form so plans
// written against httpbin run here unchanged:
//
//	/basic-auth/USER/PASS                 Basic (RFC 7617)
//	/digest-auth/auth/USER/PASS[/ALG]     Digest (RFC 7616), qop=auth, ALG MD5 (default) or SHA-256
//
// Each answers 401 with its challenge until the request carries the
// credentials, then 200 with {"user": USER}.
var (
	prefixBasicAuth  = []byte("/basic-auth/")
	prefixDigestAuth = []byte("/digest-auth/")
)

// DigestRealm is the realm of /digest-auth's challenges.
const DigestRealm = "tressi-target"

// nonceLife is how long a digest nonce is accepted after it was issued.
const nonceLife = 5 * time.Minute

func (s *Server) basicAuth(ctx *fasthttp.RequestCtx, arg []byte) {
	user, pass, ok := strings.Cut(string(arg), "/")
	if !ok || user == "" {
		ctx.Error("write /basic-auth/USER/PASS\n", fasthttp.StatusBadRequest)
		return
	}
	want := "Basic " + base64.StdEncoding.EncodeToString([]byte(user+":"+pass))
	if subtle.ConstantTimeCompare(ctx.Request.Header.Peek(fasthttp.HeaderAuthorization), []byte(want)) != 1 {
		ctx.Response.Header.Set(fasthttp.HeaderWWWAuthenticate, `Basic realm="`+DigestRealm+`", charset="UTF-8"`)
		writeJSON(ctx, fasthttp.StatusUnauthorized, errorReply{"send basic credentials for " + user})
		return
	}
	writeJSON(ctx, fasthttp.StatusOK, struct {
		User string `json:"user"`
	}{user})
}

func (s *Server) digestAuth(ctx *fasthttp.RequestCtx, arg []byte) {
	parts := strings.Split(string(arg), "/")
	if len(parts) < 3 || len(parts) > 4 || parts[0] != "auth" || parts[1] == "" {
		ctx.Error("write /digest-auth/auth/USER/PASS or /digest-auth/auth/USER/PASS/SHA-256\n", fasthttp.StatusBadRequest)
		return
	}
	user, pass, alg := parts[1], parts[2], "MD5"
	if len(parts) == 4 {
		alg = parts[3]
	}
	if alg != "MD5" && alg != "SHA-256" {
		ctx.Error("the algorithm must be MD5 or SHA-256\n", fasthttp.StatusBadRequest)
		return
	}
	h := ctx.Request.Header.Peek(fasthttp.HeaderAuthorization)
	if len(h) > 0 {
		a, err := digest.ParseAuthorization(string(h))
		if err == nil && a.Username == user && a.Realm == DigestRealm && a.Algorithm.String() == alg && a.QOP == "auth" &&
			a.URI == string(ctx.RequestURI()) && s.nonceValid(a.Nonce) && a.Valid(pass, string(ctx.Method())) {
			writeJSON(ctx, fasthttp.StatusOK, struct {
				User string `json:"user"`
			}{user})
			return
		}
	}
	ctx.Response.Header.Set(fasthttp.HeaderWWWAuthenticate, `Digest realm="`+DigestRealm+`", qop="auth", algorithm=`+alg+
		`, nonce="`+s.nonce(time.Now())+`", opaque="`+s.auth.mac("opaque")+`"`)
	writeJSON(ctx, fasthttp.StatusUnauthorized, errorReply{"answer the digest challenge for " + user})
}

// nonce is stateless: the issue time and its MAC, so the server keeps
// nothing per client under load and a nonce cannot be forged.
func (s *Server) nonce(t time.Time) string {
	ts := strconv.FormatInt(t.UnixNano(), 36)
	return ts + "." + s.auth.mac("nonce"+ts)
}

func (s *Server) nonceValid(n string) bool {
	ts, mac, ok := strings.Cut(n, ".")
	if !ok || !bytes.Equal([]byte(mac), []byte(s.auth.mac("nonce"+ts))) {
		return false
	}
	ns, err := strconv.ParseInt(ts, 36, 64)
	return err == nil && time.Since(time.Unix(0, ns)) < nonceLife
}
