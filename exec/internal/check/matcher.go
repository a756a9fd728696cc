package check

import (
	"bytes"
	"fmt"
	"math/bits"
	"strings"
	"unsafe"

	"github.com/tressi/tressi/h1"
	"github.com/tressi/tressi/plan"
)

// Matcher runs a Program on one response at a time: Start, then Head (or
// Field for each header), Body for each piece of the body as it arrives,
// and Finish. A connection (an HTTP/2 stream, a worker) keeps one and
// reuses it, so once its buffers have grown it allocates nothing.
type Matcher struct {
	p        *Program
	decided  uint64 // checks whose outcome is known
	failed   uint64 // of those, the ones that did not hold
	size     int64  // body bytes so far
	json     jsonTokenizer
	win      window // the body regexes' window
	carry    []byte // the last bytes of the body, for contains across pieces
	join     []byte // carry and the start of a piece
	why      [plan.MaxChecks]reason
	got      []byte // the failed check's subject, for Detail: the first failure's only
	gotCheck int    // whose subject got is; -1: none yet
}

// reason says why a check failed, for the sample's detail.
type reason uint8

const (
	reasonNone reason = iota
	reasonDiffers
	reasonAbsent
	reasonPresent
	reasonNotJSON
	reasonTooLong
	reasonNoMatch
	reasonSmall
	reasonLarge
)

// Start readies m for a response checked by p (nil: no checks).
func (m *Matcher) Start(p *Program) {
	m.p, m.decided, m.failed, m.size = p, 0, 0, 0
	m.carry, m.got, m.gotCheck = m.carry[:0], m.got[:0], -1
	if p == nil {
		return
	}
	m.json.reset(p)
	m.win.reset()
}

// Active says whether m has checks to run on the current response.
func (m *Matcher) Active() bool { return m.p != nil }

// Head feeds the header fields of a raw HTTP/1.1 head (status line to the
// blank line) to the header checks.
func (m *Matcher) Head(head []byte) {
	if !m.p.ReadsHead() {
		return
	}
	m.p.Headers(func(i int, name string) {
		for v := range h1.FieldValues(head, name) {
			m.header(i, v)
			break
		}
	})
}

// Field feeds one header field (any case; HTTP/2's are lower case): the
// first value of each name is the one checked.
func (m *Matcher) Field(name string, value []byte) {
	if m.p == nil || m.p.header == 0 {
		return
	}
	for rest := m.p.header &^ m.decided; rest != 0; rest &= rest - 1 {
		i := bits.TrailingZeros64(rest)
		if strings.EqualFold(name, m.p.checks[i].Path) {
			m.header(i, value)
		}
	}
}

// FieldString is Field for a value held as a string (HTTP/2's decoded
// fields), read in place.
func (m *Matcher) FieldString(name, value string) {
	if m.p == nil || m.p.header == 0 {
		return
	}
	m.Field(name, unsafe.Slice(unsafe.StringData(value), len(value)))
}

// FieldFor feeds check i's header value (nil: absent), for engines that
// look headers up by name; see Program.Headers.
func (m *Matcher) FieldFor(i int, value []byte) {
	if value != nil {
		m.header(i, value)
	}
}

func (m *Matcher) header(i int, v []byte) {
	if m.decided&(1<<i) != 0 {
		return
	}
	m.judge(i, v, true)
}

// judge decides check i on its subject v (present: it was there).
func (m *Matcher) judge(i int, v []byte, present bool) {
	c := &m.p.checks[i]
	why := reasonNone
	switch {
	case c.Op == plan.CheckExists:
		if present != c.Exists {
			why = reasonAbsent
			if present {
				why = reasonPresent
			}
		}
	case !present:
		why = reasonAbsent
	case c.Op == plan.CheckEquals && string(v) != c.Value,
		c.Op == plan.CheckContains && !bytes.Contains(v, []byte(c.Value)):
		why = reasonDiffers
	case c.Op == plan.CheckRegex && !c.re.Match(v):
		why = reasonNoMatch
	}
	m.decide(i, why, v)
}

// decide records check i's outcome: held when why is reasonNone.
func (m *Matcher) decide(i int, why reason, v []byte) {
	bit := uint64(1) << i
	m.decided |= bit
	if why == reasonNone {
		return
	}
	m.failed |= bit
	m.why[i] = why
	if m.gotCheck < 0 || i < m.gotCheck {
		m.gotCheck = i
		m.got = append(m.got[:0], v[:min(len(v), 64)]...)
	}
}

// Body feeds the next piece of the body (after de-chunking).
func (m *Matcher) Body(b []byte) {
	if m.p == nil || len(b) == 0 {
		return
	}
	m.size += int64(len(b))
	p := m.p
	if p.json&^m.decided != 0 {
		m.json.feed(m, b)
	}
	if p.contains&^m.decided != 0 {
		m.containsIn(b)
	}
	if p.regex&^m.decided != 0 {
		m.win.feed(m, b)
	}
}

// containsIn looks for each undecided contains text in b, and across the
// boundary from the previous piece.
func (m *Matcher) containsIn(b []byte) {
	if len(m.carry) > 0 {
		m.join = append(append(m.join[:0], m.carry...), b[:min(len(b), m.p.longest-1)]...)
	}
	for rest := m.p.contains &^ m.decided; rest != 0; rest &= rest - 1 {
		i := bits.TrailingZeros64(rest)
		text := m.p.checks[i].Value
		if bytes.Contains(b, []byte(text)) || len(m.carry) > 0 && bytes.Contains(m.join, []byte(text)) {
			m.decide(i, reasonNone, nil)
		}
	}
	keep := m.p.longest - 1
	if len(b) >= keep {
		m.carry = append(m.carry[:0], b[len(b)-keep:]...)
	} else {
		m.carry = append(m.carry, b...)
		m.carry = m.carry[max(0, len(m.carry)-keep):]
	}
}

// Finish decides what the body's end decides (sizes, absent values,
// texts never found) and returns the failed checks, bit i for check i.
func (m *Matcher) Finish() uint64 {
	p := m.p
	if p == nil {
		return 0
	}
	if p.json&^m.decided != 0 {
		m.json.finish(m)
	}
	if p.regex&^m.decided != 0 {
		m.win.finish(m)
	}
	for rest := p.header &^ m.decided; rest != 0; rest &= rest - 1 {
		m.judge(bits.TrailingZeros64(rest), nil, false)
	}
	for rest := p.contains &^ m.decided; rest != 0; rest &= rest - 1 {
		m.decide(bits.TrailingZeros64(rest), reasonNoMatch, nil)
	}
	for rest := p.size &^ m.decided; rest != 0; rest &= rest - 1 {
		i := bits.TrailingZeros64(rest)
		c := &p.checks[i]
		why := reasonNone
		switch {
		case c.MinSize >= 0 && m.size < c.MinSize:
			why = reasonSmall
		case c.MaxSize >= 0 && m.size > c.MaxSize:
			why = reasonLarge
		}
		m.decide(i, why, nil)
	}
	return m.failed
}

// Detail says, in words, which check failed first (in the plan's order)
// and why; "" when none did. It allocates: only samples ask.
func (m *Matcher) Detail() string {
	if m.failed == 0 {
		return ""
	}
	i := bits.TrailingZeros64(m.failed)
	c := &m.p.checks[i]
	subject := "the body"
	switch c.Subject {
	case plan.CheckJSON:
		subject = fmt.Sprintf("json %q", c.Path)
	case plan.CheckHeader:
		subject = fmt.Sprintf("header %q", c.Path)
	}
	got := ""
	if m.gotCheck == i && len(m.got) > 0 {
		got = fmt.Sprintf(" (got %q)", m.got)
	}
	var why string
	switch m.why[i] {
	case reasonDiffers:
		if c.Op == plan.CheckEquals {
			why = fmt.Sprintf("%s does not equal %q%s", subject, c.Value, got)
		} else {
			why = fmt.Sprintf("%s does not contain %q%s", subject, c.Value, got)
		}
	case reasonAbsent:
		why = subject + " is absent"
	case reasonPresent:
		why = subject + " is present" + got
	case reasonNotJSON:
		why = "the body is not JSON up to " + subject
	case reasonTooLong:
		why = fmt.Sprintf("%s is longer than %d KiB", subject, Window>>10)
	case reasonNoMatch:
		if c.Op == plan.CheckContains {
			why = fmt.Sprintf("%s does not contain %q", subject, c.Value)
		} else {
			why = fmt.Sprintf("%s does not match %q%s", subject, c.Value, got)
		}
	case reasonSmall:
		why = fmt.Sprintf("the body has %d bytes, below min_size %d", m.size, c.MinSize)
	case reasonLarge:
		why = fmt.Sprintf("the body has %d bytes, above max_size %d", m.size, c.MaxSize)
	}
	return fmt.Sprintf("check %q failed: %s", c.Name, why)
}
