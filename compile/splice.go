package compile

import (
	"encoding/hex"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/tressi/tressi/plan"
)

// Splice is a compiled template: literal byte segments with holes between
// them, filled by the executor without parsing. len(Segments) == len(Holes)+1.
type Splice struct {
	Segments [][]byte
	Holes    []Hole
}

// Hole is a compiled per-request value.
//
// A text value (HoleRow, HoleCaptured) is escaped by each flag that is set,
// in this order: JSONEscape, then QueryEscape, then URIEscape. The plan
// loader never sets both JSONEscape and QueryEscape, and URIEscape leaves a
// query-escaped value unchanged. Numeric and UUID values hold no byte any of
// them would change, so the flags do not alter them. All flags false is what
// a .tplan written before the flags existed holds, and sends the value as is.
type Hole struct {
	Kind plan.HoleKind
	// Index is the data column (HoleRow) or capture slot (HoleCaptured).
	Index    int
	Min, Max int64
	// JSONEscape fills the value as the inside of a JSON string (jsonencode()).
	JSONEscape bool
	// QueryEscape fills the value as url.QueryEscape does (urlencode()).
	QueryEscape bool `json:",omitempty"`
	// URIEscape percent-encodes the bytes a request-target cannot hold (see
	// uriUnsafe). The compiler sets it on text holes in a request's URI.
	URIEscape bool `json:",omitempty"`
	// ID distinguishes holes of one request so each random value differs.
	ID uint32
}

// escapeFlags packs the escaping flags into one byte for the schedule hash.
// Bit 0 is JSONEscape, so a hole with no other flag hashes as it did when
// JSONEscape was the only one.
func (h *Hole) escapeFlags() byte {
	var f byte
	if h.JSONEscape {
		f |= 1
	}
	if h.QueryEscape {
		f |= 2
	}
	if h.URIEscape {
		f |= 4
	}
	return f
}

// Values are what holes are filled from for one request.
type Values struct {
	Seed     uint64
	Slot     uint64
	Row      []string
	Captured [][]byte
	// WebSocket sends: the frame's mark, and the for_each element and index.
	Mark      []byte
	Each      []byte
	EachIndex int
}

// Static reports whether the splice has no holes.
func (s *Splice) Static() bool { return len(s.Holes) == 0 }

// Len is the splice's length when static.
func (s *Splice) Len() int {
	n := 0
	for _, seg := range s.Segments {
		n += len(seg)
	}
	return n
}

// Append renders the splice onto dst.
func (s *Splice) Append(dst []byte, v *Values) []byte {
	for i, seg := range s.Segments {
		dst = append(dst, seg...)
		if i < len(s.Holes) {
			dst = s.Holes[i].append(dst, v)
		}
	}
	return dst
}

func (h *Hole) append(dst []byte, v *Values) []byte {
	switch h.Kind {
	case plan.HoleRow:
		if h.Index < len(v.Row) {
			return h.appendText(dst, v.Row[h.Index])
		}
	case plan.HoleCaptured:
		if h.Index < len(v.Captured) {
			return h.appendText(dst, string(v.Captured[h.Index]))
		}
	case plan.HoleSeq:
		return strconv.AppendUint(dst, v.Slot, 10)
	case plan.HoleMark:
		return append(dst, v.Mark...) // letters and digits: nothing to escape
	case plan.HoleEachValue:
		return h.appendText(dst, string(v.Each))
	case plan.HoleEachIndex:
		return strconv.AppendInt(dst, int64(v.EachIndex), 10)
	case plan.HoleUUID:
		return appendUUID(dst, mix(v.Seed, v.Slot, uint64(h.ID)), mix(v.Seed, v.Slot, uint64(h.ID)|1<<32))
	case plan.HoleRandomInt:
		span := uint64(h.Max-h.Min) + 1
		r := mix(v.Seed, v.Slot, uint64(h.ID))
		if span != 0 {
			r %= span
		}
		return strconv.AppendInt(dst, h.Min+int64(r), 10)
	}
	return dst
}

func (h *Hole) appendText(dst []byte, s string) []byte {
	start := len(dst)
	if h.JSONEscape {
		dst = appendJSONEscaped(dst, s)
	} else {
		dst = append(dst, s...)
	}
	switch {
	case h.QueryEscape:
		// Its output is all unreserved bytes, '%' and '+': nothing URIEscape
		// would change.
		dst = escapeTail(dst, start, &queryUnsafe, true)
	case h.URIEscape:
		dst = escapeTail(dst, start, &uriUnsafe, false)
	}
	return dst
}

// uriUnsafe marks the bytes a request-target cannot hold as they are: every
// byte below 0x21 (controls and space), 0x7F, every byte from 0x80 (so UTF-8
// is encoded byte by byte), and " # < > [ \ ] ^ ` { | }. Everything else —
// unreserved characters, sub-delims, ':' '@' '/' '?' '&' '=' and '%' — passes,
// so a value can carry path segments or a query string, and an already
// percent-encoded value is sent unchanged.
//
// queryUnsafe marks what url.QueryEscape escapes: every byte but ASCII
// letters, digits and - _ . ~ (space becomes '+', which the caller handles).
var uriUnsafe, queryUnsafe = func() (uri, query [256]bool) {
	for c := 0; c < 256; c++ {
		uri[c] = c < 0x21 || c >= 0x7f || strings.IndexByte("\"#<>[\\]^`{|}", byte(c)) >= 0
		alnum := 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
		query[c] = !alnum && c != '-' && c != '_' && c != '.' && c != '~'
	}
	return uri, query
}()

// escapeTail percent-encodes, in place, the bytes of dst[start:] that unsafe
// marks, as %XX with uppercase hex; with spacePlus a space becomes '+'
// instead. It grows dst by two bytes per escaped byte and then rewrites the
// tail from its end, so it needs no scratch buffer.
func escapeTail(dst []byte, start int, unsafe *[256]bool, spacePlus bool) []byte {
	const hexDigits = "0123456789ABCDEF"
	n := 0
	for _, c := range dst[start:] {
		if unsafe[c] && !(spacePlus && c == ' ') {
			n++
		}
	}
	if n == 0 {
		if spacePlus {
			for i := start; i < len(dst); i++ {
				if dst[i] == ' ' {
					dst[i] = '+'
				}
			}
		}
		return dst
	}
	old := len(dst)
	dst = slices.Grow(dst, 2*n)[:old+2*n]
	w := len(dst)
	for r := old - 1; r >= start; r-- {
		c := dst[r]
		switch {
		case spacePlus && c == ' ':
			w--
			dst[w] = '+'
		case unsafe[c]:
			w -= 3
			dst[w], dst[w+1], dst[w+2] = '%', hexDigits[c>>4], hexDigits[c&0xf]
		default:
			w--
			dst[w] = c
		}
	}
	return dst
}

// appendJSONEscaped appends s as the inside of a JSON string.
func appendJSONEscaped(dst []byte, s string) []byte {
	const hexDigits = "0123456789abcdef"
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '"' || c == '\\':
				dst = append(dst, '\\', c)
			case c == '\n':
				dst = append(dst, '\\', 'n')
			case c == '\r':
				dst = append(dst, '\\', 'r')
			case c == '\t':
				dst = append(dst, '\\', 't')
			case c < 0x20:
				dst = append(dst, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			default:
				dst = append(dst, c)
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			dst = append(dst, `\ufffd`...)
		} else {
			dst = append(dst, s[i:i+size]...)
		}
		i += size
	}
	return dst
}

func appendUUID(dst []byte, hi, lo uint64) []byte {
	var b [16]byte
	for i := 0; i < 8; i++ {
		b[i] = byte(hi >> (56 - 8*i))
		b[8+i] = byte(lo >> (56 - 8*i))
	}
	b[6] = b[6]&0x0f | 0x40 // version 4
	b[8] = b[8]&0x3f | 0x80 // RFC 4122 variant
	var s [36]byte
	hex.Encode(s[0:8], b[0:4])
	s[8] = '-'
	hex.Encode(s[9:13], b[4:6])
	s[13] = '-'
	hex.Encode(s[14:18], b[6:8])
	s[18] = '-'
	hex.Encode(s[19:23], b[8:10])
	s[23] = '-'
	hex.Encode(s[24:], b[10:])
	return append(dst, s[:]...)
}

// mix derives a well-spread 64-bit value from (seed, slot, salt): the
// splitmix64 finaliser over their combination. Replays send the same bytes.
func mix(seed, slot, salt uint64) uint64 {
	z := seed ^ (slot * 0x9e3779b97f4a7c15) ^ (salt * 0xbf58476d1ce4e5b9)
	z += 0x9e3779b97f4a7c15
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}
