package testserver

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"unicode/utf8"

	"github.com/valyala/fasthttp"
)

// echoReply is what /echo answers: the request as the server parsed it.
type echoReply struct {
	Method  string              `json:"method"`
	URI     string              `json:"uri"`
	Headers map[string][]string `json:"headers"`
	// Body holds the body when it is valid UTF-8, BodyBase64 otherwise, so a
	// binary body survives the JSON round trip.
	Body       string `json:"body,omitempty"`
	BodyBase64 string `json:"body_base64,omitempty"`
}

// echo answers with the method, URI, headers and body it received, so a test
// can see exactly what a generator sent.
func (s *Server) echo(ctx *fasthttp.RequestCtx) {
	rep := echoReply{
		Method:  string(ctx.Method()),
		URI:     string(ctx.RequestURI()),
		Headers: map[string][]string{},
	}
	for k, v := range ctx.Request.Header.All() {
		rep.Headers[string(k)] = append(rep.Headers[string(k)], string(v))
	}
	if body := ctx.Request.Body(); utf8.Valid(body) {
		rep.Body = string(body)
	} else {
		rep.BodyBase64 = base64.StdEncoding.EncodeToString(body)
	}
	writeJSON(ctx, fasthttp.StatusOK, rep)
}

// credentials is the JSON body /login accepts.
type credentials struct {
	User     string `json:"user"`
	Password string `json:"password"`
}

// login answers POST /login with {"token": ...} for any password: the target
// tests load generators, not passwords. The user comes from a JSON body or
// from form fields (urlencoded, multipart or query).
func (s *Server) login(ctx *fasthttp.RequestCtx) {
	if !allowMethod(ctx, "POST", ctx.IsPost()) {
		return
	}
	var c credentials
	body := ctx.Request.Body()
	if bytes.Contains(ctx.Request.Header.ContentType(), []byte("json")) ||
		bytes.HasPrefix(bytes.TrimSpace(body), []byte("{")) {
		if err := json.Unmarshal(body, &c); err != nil {
			writeJSON(ctx, fasthttp.StatusBadRequest, errorReply{"body is not valid JSON: " + err.Error()})
			return
		}
	} else {
		c.User = string(ctx.FormValue("user"))
	}
	if c.User == "" {
		writeJSON(ctx, fasthttp.StatusUnauthorized, errorReply{"missing user"})
		return
	}
	writeJSON(ctx, fasthttp.StatusOK, struct {
		Token string `json:"token"`
	}{s.auth.Token(c.User)})
}

// me answers {"user": ...} to a request carrying a token /login issued.
func (s *Server) me(ctx *fasthttp.RequestCtx) {
	h := ctx.Request.Header.Peek(fasthttp.HeaderAuthorization)
	if len(h) < len(bearer) || !bytes.EqualFold(h[:len(bearer)], bearer) {
		unauthorized(ctx, "missing bearer token")
		return
	}
	user, ok := s.auth.User(string(bytes.TrimSpace(h[len(bearer):])))
	if !ok {
		unauthorized(ctx, "invalid token")
		return
	}
	writeJSON(ctx, fasthttp.StatusOK, struct {
		User string `json:"user"`
	}{user})
}

func unauthorized(ctx *fasthttp.RequestCtx, why string) {
	ctx.Response.Header.Set(fasthttp.HeaderWWWAuthenticate, "Bearer")
	writeJSON(ctx, fasthttp.StatusUnauthorized, errorReply{why})
}

// errorReply is the JSON body of every error answer that has one.
type errorReply struct {
	Error string `json:"error"`
}
