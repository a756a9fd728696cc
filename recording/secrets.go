package recording

import (
	"encoding/json"
	"io"
	"net/url"
	"regexp"
	"strconv"
	"strings"
)

// What counts as a secret: an import cannot know, so it errs on the side
// of hiding. A hidden value becomes a sensitive variable (default "", so
// the plan still runs); the plan's comment says how to pass it.

// secretHeaders are always secret, whatever they hold.
var secretHeaders = map[string]bool{
	"authorization": true, "proxy-authorization": true, "cookie": true, "x-api-key": true,
	"x-auth-token": true, "x-csrf-token": true, "x-xsrf-token": true, "x-amz-security-token": true,
}

// secretName matches header, query and body field names that hold
// credentials.
var secretName = regexp.MustCompile(`(?i)(token|secret|passw(or)?d|^pwd$|^pass$|api[-_]?key|access[-_]?key|auth|session|signature|^sig$|^key$|credential|otp)`)

func isSecretHeader(name string) bool {
	return secretHeaders[strings.ToLower(name)] || secretName.MatchString(name)
}

// secrets names the sensitive variables of a plan: one per distinct value
// of each kind of place (a header, a query or body field), so a token sent
// on every request is one variable.
type secrets struct {
	vars   []variable
	byKey  map[[2]string]string // (base name, value) -> variable name
	counts map[string]int
}

type variable struct {
	Name, Default, Description string
	Sensitive                  bool
}

// name returns the variable for value found under base (e.g. "cookie",
// "query_token"), declaring it on first sight.
func (s *secrets) name(base, value, where string) string {
	base = identifier(base)
	if v, ok := s.byKey[[2]string{base, value}]; ok {
		return v
	}
	if s.byKey == nil {
		s.byKey, s.counts = map[[2]string]string{}, map[string]int{}
	}
	s.counts[base]++
	name := base
	if n := s.counts[base]; n > 1 {
		name += "_" + strconv.Itoa(n)
	}
	s.byKey[[2]string{base, value}] = name
	s.vars = append(s.vars, variable{Name: name, Sensitive: true,
		Description: "recorded " + where + "; its value is left out: pass it with --var " + name + "=... or TRESSI_VAR_" + name})
	return name
}

// piece is literal text or an HCL expression, the parts of a template.
type piece struct {
	lit, expr string
}

// queryPieces renders a query string (or a form body) with each secret
// field's value replaced by urlencode(var.NAME), the variable holding the
// decoded value.
func queryPieces(raw string, s *secrets, where string) []piece {
	var ps []piece
	for i, field := range strings.Split(raw, "&") {
		if i > 0 {
			ps = append(ps, piece{lit: "&"})
		}
		k, v, ok := strings.Cut(field, "=")
		name, err := url.QueryUnescape(k)
		if !ok || v == "" || err != nil || !secretName.MatchString(name) {
			ps = append(ps, piece{lit: field})
			continue
		}
		value, err := url.QueryUnescape(v)
		if err != nil {
			value = v
		}
		ps = append(ps, piece{lit: k + "="}, piece{expr: "urlencode(var." + s.name(where+"_"+name, value, where+" field "+name) + ")"})
	}
	return ps
}

// jsonPieces renders a JSON body with every string value under a secret
// key replaced by jsonencode(var.NAME). ok is false when body is not JSON.
func jsonPieces(body string, s *secrets) ([]piece, bool) {
	dec := json.NewDecoder(strings.NewReader(body))
	dec.UseNumber()
	type frame struct {
		object bool
		key    bool   // the next token in this object is a key
		name   string // the key of the value being read
	}
	var stack []frame
	var ps []piece
	last, prev := 0, int64(0)
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, false
		}
		off := dec.InputOffset()
		valueDone := func() {
			if n := len(stack); n > 0 && stack[n-1].object {
				stack[n-1].key = true
			}
		}
		switch t := tok.(type) {
		case json.Delim:
			if t == '{' || t == '[' {
				stack = append(stack, frame{object: t == '{', key: true})
				break
			}
			stack = stack[:len(stack)-1]
			valueDone()
		case string:
			n := len(stack)
			if n > 0 && stack[n-1].object && stack[n-1].key {
				stack[n-1].name, stack[n-1].key = t, false
				break
			}
			if n > 0 && stack[n-1].object && t != "" && secretName.MatchString(stack[n-1].name) {
				start := int(prev) + strings.IndexByte(body[prev:off], '"')
				field := stack[n-1].name
				ps = append(ps, piece{lit: body[last:start]},
					piece{expr: "jsonencode(var." + s.name("body_"+field, t, "body field "+field) + ")"})
				last = int(off)
			}
			valueDone()
		default:
			valueDone()
		}
		prev = off
	}
	if len(stack) != 0 {
		return nil, false
	}
	return append(ps, piece{lit: body[last:]}), true
}

// identifier makes an HCL identifier (letters, digits, _) of s.
func identifier(s string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(s) {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9':
			b.WriteRune(r)
		case b.Len() > 0 && !strings.HasSuffix(b.String(), "_"):
			b.WriteByte('_')
		}
	}
	out := strings.Trim(b.String(), "_")
	if out == "" {
		out = "x"
	}
	if out[0] >= '0' && out[0] <= '9' {
		out = "n" + out
	}
	return out
}
