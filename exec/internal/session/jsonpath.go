package session

import (
	"bytes"
	"encoding/json"
)

// jsonLookup returns the value at path in body: a string's text unquoted,
// a number, true or false as their JSON text, an object or array as its
// JSON text (re-encoded); nil when absent, null or body is not JSON.
//
// It scans the bytes in place instead of decoding the document: a session
// capturing a token from every login response would otherwise decode each
// into maps (a dozen allocations and most of a session's CPU). Strings
// with escapes, objects and arrays (rare as captured values) take the
// decoder's path, so the answers are the decoder's (jsonLookupDecoded,
// which the fuzz test holds it to).
func jsonLookup(body []byte, path []PathElem) []byte {
	if !json.Valid(body) {
		// Not one JSON document: the decoder reads the first value of a
		// body with more after it, and says what is missing otherwise.
		return jsonLookupDecoded(body, path)
	}
	start, end, found := jsonFind(body, skipSpace(body, 0), path)
	switch found {
	case absent:
		return nil
	case undecided:
		return jsonLookupDecoded(body, path)
	}
	v := body[start:end]
	switch v[0] {
	case 'n':
		return nil
	case '"':
		if bytes.IndexByte(v, '\\') < 0 {
			return v[1 : len(v)-1]
		}
	case '{', '[':
	default:
		return v // a number, true or false: its text
	}
	return jsonLookupDecoded(body, path)
}

// What jsonFind found.
const (
	absent    = iota
	present   // at start:end
	undecided // an escaped key on the way: the decoder decides
)

// jsonFind finds the value at path in the valid JSON value starting at i:
// its bounds. A key that appears twice in an object is the last one, as
// the decoder has it.
func jsonFind(b []byte, i int, path []PathElem) (start, end, found int) {
	for _, p := range path {
		if p.index >= 0 {
			if b[i] != '[' {
				return 0, 0, absent
			}
			i = skipSpace(b, i+1)
			n := 0
			found := false
			for b[i] != ']' {
				if n == p.index {
					found = true
					break
				}
				i = skipSpace(b, skipValue(b, i))
				if b[i] == ',' {
					i = skipSpace(b, i+1)
				}
				n++
			}
			if !found {
				return 0, 0, absent
			}
			continue
		}
		if b[i] != '{' {
			return 0, 0, absent
		}
		i = skipSpace(b, i+1)
		at := -1
		for b[i] != '}' {
			keyEnd := skipValue(b, i)
			key := b[i+1 : keyEnd-1]
			i = skipSpace(b, skipSpace(b, keyEnd)+1) // past the colon
			if bytes.IndexByte(key, '\\') >= 0 {
				return 0, 0, undecided
			}
			if string(key) == p.key {
				at = i
			}
			i = skipSpace(b, skipValue(b, i))
			if b[i] == ',' {
				i = skipSpace(b, i+1)
			}
		}
		if at < 0 {
			return 0, 0, absent
		}
		i = at
	}
	return i, skipValue(b, i), present
}

// skipSpace skips JSON white space from i.
func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// skipValue returns the end of the valid JSON value starting at i.
func skipValue(b []byte, i int) int {
	switch b[i] {
	case '"':
		for i++; b[i] != '"'; i++ {
			if b[i] == '\\' {
				i++
			}
		}
		return i + 1
	case '{', '[':
		depth := 0
		for ; ; i++ {
			switch b[i] {
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return i + 1
				}
			case '"':
				i = skipValue(b, i) - 1
			}
		}
	}
	for i < len(b) && b[i] != ',' && b[i] != '}' && b[i] != ']' && b[i] != ' ' && b[i] != '\t' && b[i] != '\n' && b[i] != '\r' {
		i++
	}
	return i
}
