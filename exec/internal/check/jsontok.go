package check

import (
	"bytes"
	"math/bits"

	"github.com/tressi/tressi/plan"
)

// jsonTokenizer follows a JSON document fed in pieces, far enough to find
// the values at the json checks' paths: it tracks the containers on the
// way to a path (their kind, the checks still looking inside, an array's
// index), skips every other container by counting brackets, and copies a
// value the checks compare while it streams past. Its state is a fixed
// array and two reused buffers: nothing of the body is kept but the
// values compared (at most Window bytes).
type jsonTokenizer struct {
	st     jstate
	depth  int // tracked containers open
	levels [maxPath]level
	pend   uint64 // the checks looking for the value that starts next
	// skipping an untracked container: brackets open, and string state.
	skip       int
	inStr, esc bool
	key        []byte // the key being read, raw (escapes kept)
	keyText    []byte // an escaped key's text
	caps       [maxPath + 1]capture
	ncap       int
	val        []byte // the bytes of the captured values, outermost first
	over       bool   // a captured value outgrew Window
	scratch    []byte
}

type jstate uint8

const (
	jValue      jstate = iota // a value starts (after white space)
	jValueOrEnd               // after '[': a value or ']'
	jKeyOrEnd                 // after '{': a key or '}'
	jKey                      // after ',' in an object
	jKeyStr                   // inside a key
	jColon                    // after a key
	jCommaOrEnd               // after a value in a container
	jString                   // inside a string value
	jLiteral                  // inside a number, true, false or null
	jSkip                     // inside an untracked container
	jDone                     // the document's value ended
	jFailed                   // not JSON
)

type level struct {
	object bool
	mask   uint64 // the checks whose path goes through this container
	index  int    // an array's current element
}

// capture is a value being copied for the checks in mask, from val[start:].
type capture struct {
	mask  uint64
	start int
	depth int // tracked depth the value started at
}

func (t *jsonTokenizer) reset(p *Program) {
	t.st, t.depth, t.pend, t.skip, t.inStr, t.esc = jValue, 0, p.json, 0, false, false
	t.key, t.ncap, t.val, t.over = t.key[:0], 0, t.val[:0], false
}

// feed tokenizes b, deciding the checks whose values end in it.
func (t *jsonTokenizer) feed(m *Matcher, b []byte) {
	from := 0 // where the bytes a capture still needs begin in b
	i := 0
	for i < len(b) && t.st < jDone {
		switch t.st {
		case jValue, jValueOrEnd, jKeyOrEnd, jKey, jColon, jCommaOrEnd:
			i = skipWS(b, i)
			if i == len(b) {
				break
			}
			i = t.punct(m, b, i, &from)
		case jKeyStr:
			end, done := t.stringEnd(b, i)
			t.key = append(t.key, b[i:end]...)
			i = end
			if done {
				t.key = t.key[:len(t.key)-1] // the closing quote
				t.st = jColon
			}
		case jString:
			end, done := t.stringEnd(b, i)
			i = end
			if done {
				t.valueEnd(m, b, i, &from)
			}
		case jLiteral:
			for i < len(b) && isLiteral(b[i]) {
				i++
			}
			if i < len(b) {
				t.valueEnd(m, b, i, &from)
			}
		case jSkip:
			i = t.skipIn(b, i)
			if t.skip == 0 {
				t.valueEnd(m, b, i, &from)
			}
		}
	}
	if t.ncap > 0 {
		t.keep(b[from:i])
	}
}

// punct handles the structural byte at b[i]; it returns where to go on.
func (t *jsonTokenizer) punct(m *Matcher, b []byte, i int, from *int) int {
	c := b[i]
	switch t.st {
	case jValueOrEnd:
		if c == ']' {
			return t.close(m, b, i, from)
		}
		t.pend = t.child(m, 0)
		t.st = jValue
		return i
	case jKeyOrEnd, jKey:
		if c == '}' && t.st == jKeyOrEnd {
			return t.close(m, b, i, from)
		}
		if c != '"' {
			return t.fail(m, i)
		}
		t.key, t.st = t.key[:0], jKeyStr
		return i + 1
	case jColon:
		if c != ':' {
			return t.fail(m, i)
		}
		t.pend = t.childKey(m)
		t.st = jValue
		return i + 1
	case jCommaOrEnd:
		lv := &t.levels[t.depth-1]
		switch {
		case c == ',' && lv.object:
			t.st = jKey
		case c == ',':
			lv.index++
			t.pend = t.child(m, lv.index)
			t.st = jValue
		case c == '}' && lv.object, c == ']' && !lv.object:
			return t.close(m, b, i, from)
		default:
			return t.fail(m, i)
		}
		return i + 1
	}
	// jValue: a value starts at b[i].
	t.pend &^= m.decided
	if targets := t.pend & m.p.pathLen[t.depth]; targets != 0 {
		if t.ncap == 0 {
			*from = i
		}
		t.caps[t.ncap] = capture{mask: targets, start: len(t.val) + i - *from, depth: t.depth}
		t.ncap++
	}
	inner := t.pend &^ m.p.pathLen[t.depth]
	switch {
	case c == '{' || c == '[':
		if inner == 0 || t.depth == maxPath {
			t.skip, t.inStr, t.esc, t.st = 1, false, false, jSkip
			return i + 1
		}
		t.levels[t.depth] = level{object: c == '{', mask: inner}
		t.depth++
		t.st = jKeyOrEnd
		if c == '[' {
			t.st = jValueOrEnd
		}
		return i + 1
	case c == '"':
		t.inStr, t.esc, t.st = false, false, jString
		return i + 1
	case isLiteral(c):
		t.st = jLiteral
		return i + 1
	}
	return t.fail(m, i)
}

// child is the checks looking for element n of the innermost array.
func (t *jsonTokenizer) child(m *Matcher, n int) uint64 {
	lv := &t.levels[t.depth-1]
	var out uint64
	for rest := lv.mask &^ m.decided; rest != 0; rest &= rest - 1 {
		i := bits.TrailingZeros64(rest)
		if m.p.checks[i].path[t.depth-1].Index == n {
			out |= 1 << i
		}
	}
	return out
}

// childKey is the checks looking for the value of the key just read.
func (t *jsonTokenizer) childKey(m *Matcher) uint64 {
	key := t.key
	if bytes.IndexByte(key, '\\') >= 0 {
		if k, ok := appendUnescaped(t.keyText[:0], key); ok {
			t.keyText, key = k, k
		}
	}
	lv := &t.levels[t.depth-1]
	var out uint64
	for rest := lv.mask &^ m.decided; rest != 0; rest &= rest - 1 {
		i := bits.TrailingZeros64(rest)
		st := m.p.checks[i].path[t.depth-1]
		if st.Index < 0 && st.Key == string(key) {
			out |= 1 << i
		}
	}
	return out
}

// close ends the innermost container at b[i] (the value it is ends there).
func (t *jsonTokenizer) close(m *Matcher, b []byte, i int, from *int) int {
	t.depth--
	t.valueEnd(m, b, i+1, from)
	return i + 1
}

// valueEnd: the value that started at the current depth ends before b[i].
func (t *jsonTokenizer) valueEnd(m *Matcher, b []byte, i int, from *int) {
	if t.ncap > 0 && t.caps[t.ncap-1].depth == t.depth {
		t.keep(b[*from:i])
		*from = i
		t.ncap--
		cp := t.caps[t.ncap]
		t.decide(m, cp)
	}
	t.pend = 0
	if t.depth == 0 {
		t.st = jDone
		return
	}
	t.st = jCommaOrEnd
}

// decide judges the checks of a captured value.
func (t *jsonTokenizer) decide(m *Matcher, cp capture) {
	for rest := cp.mask &^ m.decided; rest != 0; rest &= rest - 1 {
		i := bits.TrailingZeros64(rest)
		if t.over {
			m.decide(i, reasonTooLong, nil)
			continue
		}
		var text []byte
		var ok bool
		text, t.scratch, ok = jsonText(t.val[cp.start:], t.scratch)
		m.judge(i, text, ok)
	}
	if t.ncap == 0 {
		t.val, t.over = t.val[:0], false
	}
}

// keep copies bytes a capture needs, up to Window.
func (t *jsonTokenizer) keep(b []byte) {
	if room := Window - len(t.val); room < len(b) {
		t.over = true
		b = b[:max(room, 0)]
	}
	t.val = append(t.val, b...)
}

// stringEnd finds the end of a string from b[i] (inside it): the index
// after its closing quote and true, or len(b) and false.
func (t *jsonTokenizer) stringEnd(b []byte, i int) (int, bool) {
	for ; i < len(b); i++ {
		if t.esc {
			t.esc = false
			continue
		}
		switch b[i] {
		case '\\':
			t.esc = true
		case '"':
			return i + 1, true
		}
	}
	return i, false
}

// skipIn skips inside an untracked container, counting brackets outside
// strings; t.skip is 0 once it closed.
func (t *jsonTokenizer) skipIn(b []byte, i int) int {
	for ; i < len(b); i++ {
		c := b[i]
		if t.inStr {
			switch {
			case t.esc:
				t.esc = false
			case c == '\\':
				t.esc = true
			case c == '"':
				t.inStr = false
			}
			continue
		}
		switch c {
		case '"':
			t.inStr = true
		case '{', '[':
			t.skip++
		case '}', ']':
			t.skip--
			if t.skip == 0 {
				return i + 1
			}
		}
	}
	return i
}

func (t *jsonTokenizer) fail(m *Matcher, i int) int {
	t.st = jFailed
	t.ncap = 0
	for rest := m.p.json &^ m.decided; rest != 0; rest &= rest - 1 {
		m.decide(bits.TrailingZeros64(rest), reasonNotJSON, nil)
	}
	return i
}

// finish decides what the end of the body decides: a number that ended
// with it, and every value never found.
func (t *jsonTokenizer) finish(m *Matcher) {
	if t.st == jLiteral && t.depth == 0 {
		t.valueEnd(m, nil, 0, new(int))
	}
	why := reasonAbsent
	if t.st != jDone {
		why = reasonNotJSON // the document ended before it closed
	}
	for rest := m.p.json &^ m.decided; rest != 0; rest &= rest - 1 {
		i := bits.TrailingZeros64(rest)
		if m.p.checks[i].Op == plan.CheckExists && why == reasonAbsent {
			m.judge(i, nil, false)
			continue
		}
		m.decide(i, why, nil)
	}
}

func skipWS(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

func isLiteral(c byte) bool {
	return c == '-' || c == '+' || c == '.' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c == 'E'
}
