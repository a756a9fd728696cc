package check

import "math/bits"

// window is what body regexes see of a body arriving in pieces: the last
// Window bytes before a piece, and the piece. A match up to Window bytes
// long ends in some piece and starts at most Window bytes before its end,
// so it lies whole in one of the windows tested.
type window struct {
	buf     []byte
	trimmed bool // bytes of the body's start have left buf
}

func (w *window) reset() { w.buf, w.trimmed = w.buf[:0], false }

// feed tests the undecided body regexes on the window with b, then keeps
// the window's last Window bytes. A regex anchored to the end waits for
// finish; one anchored to the start fails once the start has left.
func (w *window) feed(m *Matcher, b []byte) {
	for len(b) > 0 {
		// Pieces longer than a window go in window-sized steps, so the
		// window never holds more than two.
		piece := b[:min(len(b), Window)]
		b = b[len(piece):]
		text := piece
		if len(w.buf) > 0 || len(b) > 0 {
			w.buf = append(w.buf, piece...)
			text = w.buf
		}
		w.test(m, text, false)
		if m.p.regex&^m.decided == 0 {
			return
		}
		if len(w.buf) == 0 {
			w.buf = append(w.buf, piece...)
		}
		if len(w.buf) > Window {
			w.buf = w.buf[:copy(w.buf, w.buf[len(w.buf)-Window:])]
			w.trimmed = true
		}
	}
}

// test runs the undecided regexes on text; at the end (final), the ones
// anchored to the end too, and every one still undecided fails.
func (w *window) test(m *Matcher, text []byte, final bool) {
	for rest := m.p.regex &^ m.decided; rest != 0; rest &= rest - 1 {
		i := bits.TrailingZeros64(rest)
		c := &m.p.checks[i]
		switch {
		case c.start && w.trimmed, c.end && !final:
			if final {
				m.decide(i, reasonNoMatch, nil)
			}
			continue
		case c.re.Match(text):
			m.decide(i, reasonNone, nil)
		case final:
			m.decide(i, reasonNoMatch, nil)
		}
	}
}

func (w *window) finish(m *Matcher) { w.test(m, w.buf, true) }
