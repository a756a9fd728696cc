package h1

import (
	"bytes"
	"iter"
)

// FieldValues yields the values of every field called name (ASCII,
// matched case-insensitively) in a raw response head: a status line, then
// "Name: value" lines ending in CRLF (a bare LF or CR ends one too), as
// the loop keeps HTTP/1.1 heads and writes HTTP/2 ones. Values come
// without surrounding blanks, in the order of the head; nothing is copied.
func FieldValues(head []byte, name string) iter.Seq[[]byte] {
	return func(yield func([]byte) bool) {
		lines := head
		if i := bytes.IndexByte(lines, '\n'); i >= 0 {
			lines = lines[i+1:] // past the status line
		}
		for len(lines) > 0 {
			line := lines
			if i := bytes.IndexByte(lines, '\n'); i >= 0 {
				line, lines = lines[:i], lines[i+1:]
			} else {
				lines = nil
			}
			if cr := bytes.IndexByte(line, '\r'); cr >= 0 {
				line = line[:cr]
			}
			colon := bytes.IndexByte(line, ':')
			if colon < 0 || !equalFold(line[:colon], name) {
				continue
			}
			if !yield(trim(line[colon+1:])) {
				return
			}
		}
	}
}

// equalFold reports whether b and s are equal ASCII, ignoring case.
func equalFold(b []byte, s string) bool {
	if len(b) != len(s) {
		return false
	}
	for i := range len(s) {
		x, y := b[i], s[i]
		if 'A' <= x && x <= 'Z' {
			x += 'a' - 'A'
		}
		if 'A' <= y && y <= 'Z' {
			y += 'a' - 'A'
		}
		if x != y {
			return false
		}
	}
	return true
}
