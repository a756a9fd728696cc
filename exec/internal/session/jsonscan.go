package session

import (
	"bytes"
	"strconv"
	"unicode/utf8"
)

// FrameFind returns the raw JSON text of the value at path in doc (a string
// with its quotes), without decoding the document or allocating: WebSocket
// awaits test every incoming frame against their paths, so this is on the
// per-frame path. ok is false when doc is not JSON up to that value, or the
// path is absent. Object keys are compared after unescaping only when they
// hold escapes (rare); the first of duplicate keys wins.
func FrameFind(doc []byte, path []PathElem) (raw []byte, ok bool) {
	i := frameSkipWS(doc, 0)
	for _, p := range path {
		if i >= len(doc) {
			return nil, false
		}
		if p.index >= 0 {
			if doc[i] != '[' {
				return nil, false
			}
			i = frameSkipWS(doc, i+1)
			for n := 0; ; n++ {
				if i < len(doc) && doc[i] == ']' {
					return nil, false
				}
				if n == p.index {
					break
				}
				end, ok := frameSkipValue(doc, i)
				if !ok {
					return nil, false
				}
				i = frameSkipWS(doc, end)
				if i >= len(doc) || doc[i] != ',' {
					return nil, false
				}
				i = frameSkipWS(doc, i+1)
			}
			continue
		}
		if doc[i] != '{' {
			return nil, false
		}
		i = frameSkipWS(doc, i+1)
		found := false
		for i < len(doc) && doc[i] != '}' {
			kEnd, ok := frameSkipString(doc, i)
			if !ok {
				return nil, false
			}
			match := frameKeyEquals(doc[i:kEnd], p.key)
			i = frameSkipWS(doc, kEnd)
			if i >= len(doc) || doc[i] != ':' {
				return nil, false
			}
			i = frameSkipWS(doc, i+1)
			if match {
				found = true
				break
			}
			end, ok := frameSkipValue(doc, i)
			if !ok {
				return nil, false
			}
			i = frameSkipWS(doc, end)
			if i < len(doc) && doc[i] == ',' {
				i = frameSkipWS(doc, i+1)
			}
		}
		if !found {
			return nil, false
		}
	}
	end, ok := frameSkipValue(doc, i)
	if !ok {
		return nil, false
	}
	return doc[i:end], true
}

// JSONText is what an await compares and a capture keeps: a string's
// content unescaped (appended to scratch only when it holds escapes), any
// other value's raw text; ok false for null.
func JSONText(raw []byte, scratch []byte) ([]byte, bool) {
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return nil, false
	}
	if raw[0] != '"' {
		return raw, true
	}
	body := raw[1 : len(raw)-1]
	if bytes.IndexByte(body, '\\') < 0 {
		return body, true
	}
	s, err := strconv.Unquote(string(raw))
	if err != nil {
		return nil, false
	}
	return append(scratch[:0], s...), true
}

func frameKeyEquals(quoted []byte, key string) bool {
	body := quoted[1 : len(quoted)-1]
	if bytes.IndexByte(body, '\\') < 0 {
		return string(body) == key
	}
	s, err := strconv.Unquote(string(quoted))
	return err == nil && s == key
}

func frameSkipWS(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// skipString returns the index after the string starting at b[i].
func frameSkipString(b []byte, i int) (int, bool) {
	if i >= len(b) || b[i] != '"' {
		return 0, false
	}
	for i++; i < len(b); i++ {
		switch c := b[i]; {
		case c == '\\':
			i++
		case c == '"':
			return i + 1, true
		case c < 0x20:
			return 0, false
		}
	}
	return 0, false
}

// skipValue returns the index after the JSON value starting at b[i].
// Containers are skipped by counting brackets outside strings, which is
// enough to find where a well-formed value ends; a malformed one ends
// wherever its brackets say, or fails at the end of the input.
func frameSkipValue(b []byte, i int) (int, bool) {
	if i >= len(b) {
		return 0, false
	}
	switch c := b[i]; {
	case c == '"':
		return frameSkipString(b, i)
	case c == '{' || c == '[':
		depth := 0
		for ; i < len(b); i++ {
			switch b[i] {
			case '"':
				end, ok := frameSkipString(b, i)
				if !ok {
					return 0, false
				}
				i = end - 1
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return i + 1, true
				}
			}
		}
		return 0, false
	default:
		j := i
		for j < len(b) && (b[j] == '-' || b[j] == '+' || b[j] == '.' || b[j] >= '0' && b[j] <= '9' ||
			b[j] >= 'a' && b[j] <= 'z' || b[j] == 'E') {
			j++
		}
		if j == i {
			return 0, false
		}
		return j, utf8.Valid(b[i:j])
	}
}

// JSONArrayTexts splits a JSON array's raw text into its elements' texts
// (strings unquoted), for for_each. It allocates: it runs once per capture.
func JSONArrayTexts(raw []byte, limit int) ([][]byte, bool) {
	i := frameSkipWS(raw, 0)
	if i >= len(raw) || raw[i] != '[' {
		return nil, false
	}
	var out [][]byte
	i = frameSkipWS(raw, i+1)
	for i < len(raw) && raw[i] != ']' && len(out) < limit {
		end, ok := frameSkipValue(raw, i)
		if !ok {
			return out, false
		}
		if t, ok := JSONText(raw[i:end], nil); ok {
			out = append(out, append([]byte(nil), t...))
		}
		i = frameSkipWS(raw, end)
		if i < len(raw) && raw[i] == ',' {
			i = frameSkipWS(raw, i+1)
		}
	}
	return out, true
}

// JSONCollect implements a path with one [*] step: the values at rest of
// the path in every element of the array at the head of the path, as a
// JSON array text (strings stay quoted). Captures use it, e.g.
// json("meta.sub[*].topic").
func JSONCollect(doc []byte, head, rest []PathElem) ([]byte, bool) {
	arr, ok := FrameFind(doc, head)
	if !ok || len(arr) == 0 || arr[0] != '[' {
		return nil, false
	}
	out := []byte{'['}
	i := frameSkipWS(arr, 1)
	n := 0
	for i < len(arr) && arr[i] != ']' {
		end, ok := frameSkipValue(arr, i)
		if !ok {
			return nil, false
		}
		if v, ok := FrameFind(arr[i:end], rest); ok {
			if n > 0 {
				out = append(out, ',')
			}
			out = append(out, v...)
			n++
		}
		i = frameSkipWS(arr, end)
		if i < len(arr) && arr[i] == ',' {
			i = frameSkipWS(arr, i+1)
		}
	}
	return append(out, ']'), true
}
