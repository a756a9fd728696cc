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
