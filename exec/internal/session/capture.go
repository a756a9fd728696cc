package session

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"

	"github.com/valyala/fasthttp"

	"github.com/tressi/tressi/compile"
	"github.com/tressi/tressi/h1"
	"github.com/tressi/tressi/internal/jsonpath"
)

// Capturer takes one named value from a step's response into a session's
// capture slot. It is built once per run (regexes compiled, JSON paths
// parsed) and shared read-only by every session.
type Capturer struct {
	Index  int // the session's capture slot
	kind   compile.CaptureKind
	path   []PathElem     // json
	header string         // header
	re     *regexp.Regexp // regex
}

// PathElem is one step of a JSON path: an object key or an array index.
type PathElem struct {
	key   string
	index int // >= 0: an array index, and key is unused
}

// NewCapturer compiles a capture; the error says which capture is wrong and how.
func NewCapturer(c compile.Capture) (Capturer, error) {
	cp := Capturer{Index: c.Index, kind: c.Kind}
	var err error
	switch c.Kind {
	case compile.CaptureJSON:
		cp.path, err = ParseJSONPath(c.Expr)
	case compile.CaptureHeader, compile.CaptureCookie:
		cp.header = c.Expr // cookie: the cookie's name, read from the session's jar
	case compile.CaptureRegex:
		cp.re, err = regexp.Compile(c.Expr)
	default:
		err = fmt.Errorf("unknown capture kind %d; recompile the plan with this tressi", c.Kind)
	}
	if err != nil {
		return cp, fmt.Errorf("capture %q: %w", c.Name, err)
	}
	return cp, nil
}

// ParseJSONPath parses a dotted path with [index] steps, such as
// "data.items[0].id"; a leading "$." is allowed (internal/jsonpath).
func ParseJSONPath(s string) ([]PathElem, error) {
	steps, err := jsonpath.Parse(s)
	if err != nil {
		return nil, err
	}
	path := make([]PathElem, len(steps))
	for i, st := range steps {
		path[i] = PathElem{key: st.Key, index: st.Index}
	}
	return path, nil
}

// CaptureSource is a response as captures read it: both engines' responses
// are one.
type CaptureSource interface {
	// captureBody is the body kept (at most captureBodyLimit bytes of it).
	captureBody() []byte
	// captureHeader is the first value of the named header; nil if absent.
	captureHeader(name string) []byte
}

// CaptureBodyLimit is the most of a body a capture reads: a body capture
// (json, regex) on a longer body sees only its first bytes, and finds its
// value there or not at all. The bound keeps a session's memory bounded
// whatever a server sends.
const CaptureBodyLimit = 1 << 20

// FastResponse is a fasthttp response as captures read it: its headers,
// and the body prefix the worker kept (nil: the response's own body).
type FastResponse struct {
	R    *fasthttp.Response
	Body *[]byte
}

func (f *FastResponse) captureBody() []byte {
	b := f.R.Body()
	if f.Body != nil {
		b = *f.Body
	}
	return b[:min(len(b), CaptureBodyLimit)]
}

func (f *FastResponse) captureHeader(name string) []byte { return f.R.Header.Peek(name) }

// ReadsBody says whether the capture reads the body (else the head).
func (c *Capturer) ReadsBody() bool {
	return c.kind != compile.CaptureHeader && c.kind != compile.CaptureCookie
}

// Cookie is the name of the cookie a cookie() capture reads from the
// session's jar after the response (the engines fill it, not Extract);
// false for the other kinds.
func (c *Capturer) Cookie() (string, bool) { return c.header, c.kind == compile.CaptureCookie }

// Extract appends the captured value to dst and reports whether there was
// one. An empty value counts as missing: a later request must never go out
// with a hole filled by nothing (an "Authorization: Bearer " header).
func (c *Capturer) Extract(dst []byte, resp CaptureSource) ([]byte, bool) {
	var v []byte
	switch c.kind {
	case compile.CaptureJSON:
		v = jsonLookup(resp.captureBody(), c.path)
	case compile.CaptureHeader:
		v = resp.captureHeader(c.header)
	case compile.CaptureRegex:
		body := resp.captureBody()
		m := c.re.FindSubmatchIndex(body)
		switch {
		case m == nil:
		case len(m) >= 4 && m[2] >= 0:
			v = body[m[2]:m[3]]
		default:
			v = body[m[0]:m[1]]
		}
	}
	if len(v) == 0 {
		return dst, false
	}
	return append(dst, v...), true
}

// headerValue is the first value of header name in a raw response head,
// without surrounding blanks; nil if absent. Names match
// case-insensitively, as fasthttp's Peek does.
func headerValue(head []byte, name string) []byte {
	for v := range h1.FieldValues(head, name) {
		return v
	}
	return nil
}

// RawResponse is a response as the loop keeps it: its head and the kept
// prefix of its body.
type RawResponse struct{ Head, Body []byte }

func (r *RawResponse) captureBody() []byte { return r.Body[:min(len(r.Body), CaptureBodyLimit)] }

func (r *RawResponse) captureHeader(name string) []byte { return headerValue(r.Head, name) }

// jsonLookupDecoded is jsonLookup by decoding the whole document: a string's text unquoted,
// any other value as its JSON text; nil when absent, null or not JSON.
func jsonLookupDecoded(body []byte, path []PathElem) []byte {
	d := json.NewDecoder(bytes.NewReader(body))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return nil
	}
	for _, p := range path {
		if p.index >= 0 {
			a, ok := v.([]any)
			if !ok || p.index >= len(a) {
				return nil
			}
			v = a[p.index]
			continue
		}
		o, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		if v, ok = o[p.key]; !ok {
			return nil
		}
	}
	switch x := v.(type) {
	case nil:
		return nil
	case string:
		return []byte(x)
	case json.Number:
		return []byte(x)
	case bool:
		return strconv.AppendBool(nil, x)
	}
	b, _ := json.Marshal(v) // decoded JSON always marshals back
	return b
}
