package check

import (
	"bytes"
	"unicode/utf16"
	"unicode/utf8"
)

// jsonText is what a json check compares: a string's text unescaped
// (into scratch, reused, only when it holds escapes), any other value's
// JSON text; present false for null. Unlike session.JSONText it does not
// allocate: a check may read an escaped string in every response.
func jsonText(raw, scratch []byte) (text, buf []byte, present bool) {
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return nil, scratch, false
	}
	if raw[0] != '"' || len(raw) < 2 {
		return raw, scratch, true
	}
	body := raw[1 : len(raw)-1]
	if bytes.IndexByte(body, '\\') < 0 {
		return body, scratch, true
	}
	buf, ok := appendUnescaped(scratch[:0], body)
	return buf, buf, ok
}

// appendUnescaped appends the text of a JSON string's content (between
// the quotes) to dst; false when an escape is malformed.
func appendUnescaped(dst, s []byte) ([]byte, bool) {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' {
			dst = append(dst, c)
			continue
		}
		i++
		if i == len(s) {
			return dst, false
		}
		switch s[i] {
		case '"', '\\', '/':
			dst = append(dst, s[i])
		case 'b':
			dst = append(dst, '\b')
		case 'f':
			dst = append(dst, '\f')
		case 'n':
			dst = append(dst, '\n')
		case 'r':
			dst = append(dst, '\r')
		case 't':
			dst = append(dst, '\t')
		case 'u':
			r, ok := hex4(s[i+1:])
			if !ok {
				return dst, false
			}
			i += 4
			if utf16.IsSurrogate(r) {
				if r2, ok := hex4(s[min(i+3, len(s)):]); ok && i+2 < len(s) && s[i+1] == '\\' && s[i+2] == 'u' {
					if d := utf16.DecodeRune(r, r2); d != utf8.RuneError {
						r = d
						i += 6
					}
				}
			}
			dst = utf8.AppendRune(dst, r)
		default:
			return dst, false
		}
	}
	return dst, true
}

func hex4(s []byte) (rune, bool) {
	if len(s) < 4 {
		return 0, false
	}
	var r rune
	for _, c := range s[:4] {
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c|0x20 >= 'a' && c|0x20 <= 'f':
			c = c | 0x20 - 'a' + 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	return r, true
}
