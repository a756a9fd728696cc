package plan

import (
	"bytes"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"
)

// Sensitive values are marked in cty, which keeps them out of what the
// plan prints on purpose; but a value also reaches text by other roads: a
// library's error quotes it (net/url's `invalid port ":…"`, cty's `cannot
// convert "…"`), a -var's own text is shown as the diagnostic's snippet, a
// server echoes a header into a sampled response. So the texts themselves
// are collected and cut out of whatever is shown or stored.

// Redacted replaces a sensitive value wherever one is cut out.
const Redacted = "(sensitive)"

// minSecret is the shortest text searched for: shorter ones ("1", "on")
// would blank out unrelated text everywhere, and are no secret anyway.
const minSecret = 4

// Secrets are sensitive texts to cut out of messages, files and samples.
type Secrets []string

// add records the texts of v: a string, or every string and number in a
// collection.
func (s *Secrets) add(v cty.Value) {
	v, _ = v.UnmarkDeep()
	if !v.IsKnown() || v.IsNull() {
		return
	}
	switch {
	case v.Type() == cty.String:
		s.addText(v.AsString())
	case v.Type() == cty.Number:
		s.addText(v.AsBigFloat().Text('f', -1))
	case v.Type().IsCollectionType() || v.Type().IsObjectType() || v.Type().IsTupleType():
		for it := v.ElementIterator(); it.Next(); {
			_, e := it.Element()
			s.add(e)
		}
	}
}

func (s *Secrets) addText(t string) {
	t = strings.TrimSpace(t)
	if len(t) < minSecret {
		return
	}
	for _, have := range *s {
		if have == t {
			return
		}
	}
	*s = append(*s, t)
}

// A value computed from a sensitive one is sensitive too: the header
// "Basic ${base64encode("${var.user}:${var.pass}")}" holds no text of the
// password, yet gives it away. cty carries the variable's mark through
// every function, operator and template, so the mark, not the variable's
// text, says which request values are sensitive: their texts are cut out
// as the variable's are, wherever they would be shown or stored (a server
// echoing the header into a sampled response, a library quoting it in an
// error).

// noteSensitive records the literal text of t, a request value whose cty
// value carries the sensitive mark.
func (l *loader) noteSensitive(t Template) {
	for _, p := range t.Parts {
		if p.Hole == nil {
			l.derived = append(l.derived, p.Literal)
		}
	}
}

// sensitivePath says whether marks (a map's or object's, from
// UnmarkDeepWithPaths) put the sensitive mark on its element key.
func sensitivePath(marks []cty.PathValueMarks, key string) bool {
	for _, pm := range marks {
		if len(pm.Path) == 0 || !pm.Marks.Has(sensitiveMark) {
			continue
		}
		switch step := pm.Path[0].(type) {
		case cty.GetAttrStep:
			if step.Name == key {
				return true
			}
		case cty.IndexStep:
			if step.Key.Type() == cty.String && step.Key.AsString() == key {
				return true
			}
		}
	}
	return false
}

// addDerived adds the words of texts, values computed from sensitive ones,
// that no source of the plan holds: what the plan's author typed
// ("Basic", a JSON key) is no secret, what a function computed from the
// secret ("YWxpY2U6…", "ALICE123") is. Words, not the whole text, because
// a server re-encodes what it echoes (JSON escapes quotes), and words are
// runs of letters, digits and what base64 (its padding aside), URLs and
// percent-encoding use.
func (s *Secrets) addDerived(texts []string, sources map[string][]byte) {
	for _, t := range texts {
		for _, w := range strings.FieldsFunc(t, func(r rune) bool { return !secretRune(r) }) {
			if len(w) >= minSecret && !inSources(w, sources) {
				s.addText(w)
			}
		}
	}
}

func secretRune(r rune) bool {
	return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("+/-_.~%", r) || r > 0x7f
}

func inSources(w string, sources map[string][]byte) bool {
	for _, src := range sources {
		if bytes.Contains(src, []byte(w)) {
			return true
		}
	}
	return false
}

// String cuts every secret out of t.
func (s Secrets) String(t string) string {
	for _, secret := range s {
		t = strings.ReplaceAll(t, secret, Redacted)
	}
	return t
}

// Bytes cuts every secret out of b, and a secret's beginning at b's end,
// where a sampled body was cut short. It returns b itself when there is
// nothing to cut.
func (s Secrets) Bytes(b []byte) []byte {
	for _, secret := range s {
		sec := []byte(secret)
		if bytes.Contains(b, sec) {
			b = bytes.ReplaceAll(b, sec, []byte(Redacted))
		}
		for n := len(sec) - 1; n >= minSecret; n-- {
			if bytes.HasSuffix(b, sec[:n]) {
				b = append(b[:len(b)-n:len(b)-n], Redacted...)
				break
			}
		}
	}
	return b
}

// Diagnostics cuts every secret out of diags' texts, in place.
func (s Secrets) Diagnostics(diags hcl.Diagnostics) hcl.Diagnostics {
	if len(s) == 0 {
		return diags
	}
	for _, d := range diags {
		d.Summary, d.Detail = s.String(d.Summary), s.String(d.Detail)
	}
	return diags
}
