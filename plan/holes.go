package plan

import (
	"crypto/rand"
	"encoding/hex"
	"net/url"
	"strconv"
	"strings"

	"github.com/zclconf/go-cty/cty"
)

// Per-request values (row.*, captured.*, seq, uuid(), random_int()) are not
// known at load time, yet they flow through ordinary HCL expressions:
// interpolation, format(), jsonencode(). Each one evaluates to a sentinel
// string that names an entry of the loader's hole table between two Unicode
// private-use characters, which no HCL function escapes or rewrites. The
// final string is then split back into a Template.
const (
	holeOpen  = "\uE000"
	holeClose = "\uE001"
)

// holeTable numbers every hole handed out while loading one plan. Sentinels
// carry a random nonce so text in the plan that merely looks like one (the
// private-use characters can be written as "\uE000") is never taken for a hole.
type holeTable struct {
	nonce string
	holes []Hole
	named map[Hole]string // reused sentinels for row.*, captured.* and seq
	// blobs are the bytes of binary files read by file(): go-cty strings
	// are Unicode text (normalised to NFC), which would change them, so
	// they travel as sentinels too and become literal bytes in a Template.
	blobs []string
}

// blobMark follows the nonce in a blob's sentinel, before its number.
const blobMark = "b"

// blobSentinel returns the string standing for the bytes b.
func (t *holeTable) blobSentinel(b []byte) string {
	t.blobs = append(t.blobs, string(b))
	return holeOpen + t.nonce + blobMark + strconv.Itoa(len(t.blobs)-1) + holeClose
}

// lookupBlob returns the bytes a blob sentinel's number names.
func (t *holeTable) lookupBlob(body string) (string, bool) {
	num, ok := strings.CutPrefix(body, t.nonce+blobMark)
	if !ok {
		return "", false
	}
	i, err := strconv.Atoi(num)
	if err != nil || i < 0 || i >= len(t.blobs) {
		return "", false
	}
	return t.blobs[i], true
}

// sentinel returns the string standing for h. Holes that name the same value
// share one sentinel; uuid() and random_int() get a fresh one per call since
// each call site draws its own random value.
func (t *holeTable) sentinel(h Hole) string {
	shared := h.Kind == HoleRow || h.Kind == HoleCaptured || h.Kind == HoleSeq ||
		h.Kind == HoleMark || h.Kind == HoleEachValue || h.Kind == HoleEachIndex
	if shared {
		if s, ok := t.named[h]; ok {
			return s
		}
	}
	s := holeOpen + t.nonce + strconv.Itoa(len(t.holes)) + holeClose
	t.holes = append(t.holes, h)
	if shared {
		if t.named == nil {
			t.named = map[Hole]string{}
		}
		t.named[h] = s
	}
	return s
}

// lookup returns the hole a sentinel's number names.
func (t *holeTable) lookup(body string) (Hole, bool) {
	num, ok := strings.CutPrefix(body, t.nonce)
	if !ok {
		return Hole{}, false
	}
	i, err := strconv.Atoi(num)
	if err != nil || i < 0 || i >= len(t.holes) {
		return Hole{}, false
	}
	return t.holes[i], true
}

// Messages for a hole that would need escaping twice, which the splice
// cannot express: each hole is filled with at most one encoding.
const (
	errJSONTwice  = "a per-request value cannot be JSON-encoded twice; call jsonencode() once, on the outermost value"
	errURLTwice   = "a per-request value cannot be URL-encoded twice; call urlencode() once"
	errJSONOfURL  = "a per-request value cannot be JSON-encoded after urlencode(); use urlencode() or jsonencode() on it, not both"
	errURLOfJSON  = "a per-request value cannot be URL-encoded after jsonencode(); use urlencode() or jsonencode() on it, not both"
	errJSONOfBlob = "a binary file (not UTF-8 text) cannot go into JSON as it is; use base64encode(file(...)), or send it as the whole body or a multipart file"
	errNoEncoding = ""
)

// jsonEscaped rewrites every sentinel in s, which is jsonencode's output, to
// one whose hole is filled JSON-escaped: every hole is a string, so in JSON
// output it always sits inside a string literal. A numeric hole (seq,
// random_int()) that is a whole string literal loses its quotes, so
// jsonencode({n = seq}) sends a JSON number, as it would for a number. A
// hole that is already JSON-escaped or URL-encoded would need escaping
// twice, which the splice cannot express: then the message says why.
func (t *holeTable) jsonEscaped(s string) (string, string) {
	if !strings.Contains(s, holeOpen) {
		return s, errNoEncoding
	}
	type piece struct {
		lit  string
		hole *Hole
	}
	var pieces []piece
	msg := errNoEncoding
	t.splitBlobs(s, func(lit string) { pieces = append(pieces, piece{lit: lit}) }, func(h Hole) {
		switch {
		case h.JSONEscape && msg == errNoEncoding:
			msg = errJSONTwice
		case h.URLEncode && msg == errNoEncoding:
			msg = errJSONOfURL
		}
		h.JSONEscape = true
		pieces = append(pieces, piece{hole: &h})
	}, func(string) {
		if msg == errNoEncoding {
			msg = errJSONOfBlob
		}
	})
	for i, p := range pieces {
		numeric := p.hole != nil && (p.hole.Kind == HoleSeq || p.hole.Kind == HoleRandomInt || p.hole.Kind == HoleEachIndex)
		if numeric && i > 0 && i+1 < len(pieces) && pieces[i-1].hole == nil && pieces[i+1].hole == nil &&
			strings.HasSuffix(pieces[i-1].lit, `"`) && strings.HasPrefix(pieces[i+1].lit, `"`) {
			pieces[i-1].lit = strings.TrimSuffix(pieces[i-1].lit, `"`)
			pieces[i+1].lit = strings.TrimPrefix(pieces[i+1].lit, `"`)
		}
	}
	var b strings.Builder
	for _, p := range pieces {
		if p.hole != nil {
			b.WriteString(t.sentinel(*p.hole))
		} else {
			b.WriteString(p.lit)
		}
	}
	return b.String(), msg
}

// urlEncoded is urlencode() on s: literal text is escaped by
// url.QueryEscape, and every sentinel is rewritten to one whose hole is
// filled query-escaped, so the filled value reads as url.QueryEscape of the
// real value. A hole that is already URL-encoded or JSON-escaped would need
// escaping twice: then the message says why.
func (t *holeTable) urlEncoded(s string) (string, string) {
	if !strings.Contains(s, holeOpen) {
		return url.QueryEscape(s), errNoEncoding
	}
	var b strings.Builder
	msg := errNoEncoding
	t.split(s, func(lit string) { b.WriteString(url.QueryEscape(lit)) }, func(h Hole) {
		switch {
		case h.URLEncode && msg == errNoEncoding:
			msg = errURLTwice
		case h.JSONEscape && msg == errNoEncoding:
			msg = errURLOfJSON
		}
		h.URLEncode = true
		b.WriteString(t.sentinel(h))
	})
	return b.String(), msg
}

// split walks s, calling lit for literal text (a binary file's bytes
// included) and hole for each sentinel. Text that only looks like a
// sentinel is kept as literal text.
func (t *holeTable) split(s string, lit func(string), hole func(Hole)) {
	t.splitBlobs(s, lit, hole, lit)
}

// splitBlobs is split, with blob called for a binary file's bytes.
func (t *holeTable) splitBlobs(s string, lit func(string), hole func(Hole), blob func(string)) {
	for s != "" {
		i := strings.Index(s, holeOpen)
		if i < 0 {
			lit(s)
			return
		}
		j := strings.Index(s[i:], holeClose)
		if j < 0 {
			lit(s)
			return
		}
		if b, ok := t.lookupBlob(s[i+len(holeOpen) : i+j]); ok {
			if i > 0 {
				lit(s[:i])
			}
			blob(b)
			s = s[i+j+len(holeClose):]
			continue
		}
		h, ok := t.lookup(s[i+len(holeOpen) : i+j])
		if !ok {
			// Not ours: keep the opening character as text and look on.
			lit(s[:i+len(holeOpen)])
			s = s[i+len(holeOpen):]
			continue
		}
		if i > 0 {
			lit(s[:i])
		}
		hole(h)
		s = s[i+j+len(holeClose):]
	}
}

// template splits a string value into literal parts and holes.
func (t *holeTable) template(s string) Template {
	var parts []Part
	t.split(s, func(lit string) {
		if n := len(parts); n > 0 && parts[n-1].Hole == nil {
			parts[n-1].Literal += lit
			return
		}
		parts = append(parts, Part{Literal: lit})
	}, func(h Hole) {
		parts = append(parts, Part{Hole: &h})
	})
	return Template{Parts: parts}
}

// hasHole reports whether v holds a sentinel anywhere inside it.
func hasHole(v cty.Value) bool {
	found := false
	v, _ = v.UnmarkDeep()
	_ = cty.Walk(v, func(_ cty.Path, v cty.Value) (bool, error) {
		if found || !v.IsKnown() || v.IsNull() {
			return !found, nil
		}
		if v.Type() == cty.String && strings.Contains(v.AsString(), holeOpen) {
			found = true
		}
		return !found, nil
	})
	return found
}

// newNonce returns 16 random hex digits for sentinels.
func newNonce() string {
	b := make([]byte, 8)
	_, _ = rand.Read(b) // crypto/rand.Read never fails on supported platforms
	return hex.EncodeToString(b) + ":"
}
