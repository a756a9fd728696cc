package recording

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"strings"
)

// auth writes basic_auth (digest_auth for curl --digest) for r's
// credentials, curl's -u or a recorded Authorization: Basic header, each
// part a sensitive variable, and returns r's headers without their
// Authorization, which the attribute replaces (a block cannot have both).
func (w *writer) auth(out *bytes.Buffer, r Request) []Header {
	creds, where := r.Basic, "curl -u"
	if creds == nil {
		for _, h := range r.Headers {
			if strings.EqualFold(h.Name, "Authorization") {
				creds, where = basicCredentials(h.Value), "Authorization: Basic"
				break
			}
		}
	}
	if creds == nil {
		return r.Headers
	}
	attr := "basic_auth"
	if r.Digest {
		attr = "digest_auth"
	}
	user := w.secrets.name("username", creds.User, where+" user name")
	pass := w.secrets.name("password", creds.Password, where+" password")
	fmt.Fprintf(out, "%s = { username = var.%s, password = var.%s }\n", attr, user, pass)
	var kept []Header
	for _, h := range r.Headers {
		if !strings.EqualFold(h.Name, "Authorization") {
			kept = append(kept, h)
		}
	}
	return kept
}

// basicCredentials are the user and password of an Authorization: Basic
// value (RFC 7617), nil when it is not one basic_auth can stand for.
func basicCredentials(value string) *Credentials {
	scheme, token, ok := strings.Cut(strings.TrimSpace(value), " ")
	if !ok || !strings.EqualFold(scheme, "Basic") {
		return nil
	}
	raw, err := base64.StdEncoding.DecodeString(strings.TrimSpace(token))
	if err != nil {
		return nil
	}
	user, pass, ok := strings.Cut(string(raw), ":")
	if !ok || strings.ContainsAny(string(raw), "\r\n") {
		return nil
	}
	return &Credentials{User: user, Password: pass}
}

// cookiesSet are the cookie names a session's recorded answers set, by
// host: the replay's cookie jar sends those itself, with what the server
// sets then, so a recorded Cookie header keeps only the others.
type cookiesSet map[string]map[string]bool

// add notes the cookies r's answer (every hop's, for a folded chain) set.
func (c *cookiesSet) add(r Request) {
	for _, pair := range r.SetCookies {
		name, _, _ := strings.Cut(pair, "=")
		if *c == nil {
			*c = cookiesSet{}
		}
		host := strings.ToLower(r.URL.Hostname())
		if (*c)[host] == nil {
			(*c)[host] = map[string]bool{}
		}
		(*c)[host][strings.TrimSpace(name)] = true
	}
}

// dropFrom is headers with the cookies earlier answers set for host taken
// out of their Cookie headers (a header left empty goes).
func (c cookiesSet) dropFrom(headers []Header, host string) []Header {
	set := c[strings.ToLower(hostname(host))]
	if len(set) == 0 {
		return headers
	}
	var kept []Header
	for _, h := range headers {
		if !strings.EqualFold(h.Name, "Cookie") {
			kept = append(kept, h)
			continue
		}
		var pairs []string
		for _, pair := range strings.Split(h.Value, ";") {
			pair = strings.TrimSpace(pair)
			if name, _, _ := strings.Cut(pair, "="); pair != "" && !set[name] {
				pairs = append(pairs, pair)
			}
		}
		if len(pairs) > 0 {
			kept = append(kept, Header{Name: h.Name, Value: strings.Join(pairs, "; ")})
		}
	}
	return kept
}

// hostname is host:port without its port.
func hostname(host string) string {
	if i := strings.LastIndexByte(host, ':'); i >= 0 && !strings.HasSuffix(host, "]") {
		return strings.Trim(host[:i], "[]")
	}
	return strings.Trim(host, "[]")
}
