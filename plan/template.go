package plan

// Template is a string value that may differ per request: literal text with
// holes for row.*, captured.*, seq, uuid() and random_int(). A Template with
// no holes is static and is rendered once at compile time.
type Template struct {
	Parts []Part
}

// Part is either literal text or a hole.
type Part struct {
	Literal string
	Hole    *Hole // nil for a literal
}

// HoleKind says what fills a hole.
type HoleKind uint8

// Hole kinds.
const (
	HoleRow       HoleKind = iota + 1 // row.<Name>: a column of the session's data row
	HoleCaptured                      // captured.<Name>: a value captured earlier in the session
	HoleSeq                           // seq: the slot number
	HoleUUID                          // uuid(): random v4 UUID derived from (seed, slot, hole)
	HoleRandomInt                     // random_int(Min, Max): inclusive, derived from (seed, slot, hole)
	HoleMark                          // mark: a token unique to this frame, for fan-out delivery
	HoleEachValue                     // each.value: the for_each element (text, or JSON for non-strings)
	HoleEachIndex                     // each.index: the for_each iteration, from 0
)

// Hole is a per-request value.
type Hole struct {
	Kind     HoleKind
	Name     string // column or capture name
	Min, Max int64  // random_int bounds
	// JSONEscape is set when the hole sits inside a jsonencode() string, so the
	// filled value must be escaped as a JSON string body.
	JSONEscape bool
	// URLEncode is set when the hole was passed through urlencode(), so the
	// filled value must be escaped as url.QueryEscape does. A hole is never
	// both JSON-escaped and URL-encoded: the loader rejects the mix.
	URLEncode bool
}

// Static reports whether the template has no holes.
func (t Template) Static() bool {
	for _, p := range t.Parts {
		if p.Hole != nil {
			return false
		}
	}
	return true
}

// Literal returns the template's text when it is static.
func (t Template) Literal() string {
	if len(t.Parts) == 1 && t.Parts[0].Hole == nil {
		return t.Parts[0].Literal
	}
	s := ""
	for _, p := range t.Parts {
		s += p.Literal
	}
	return s
}

// LiteralTemplate makes a static template.
func LiteralTemplate(s string) Template {
	if s == "" {
		return Template{}
	}
	return Template{Parts: []Part{{Literal: s}}}
}
