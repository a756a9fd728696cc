package ws

import (
	"bytes"
	"errors"
	"strings"
	"testing"
)

var key = [4]byte{0x37, 0xfa, 0x21, 0x3d}

type msg struct {
	op      Opcode
	payload string
}

// feed runs r over in, cut into pieces of the given sizes (cycled; nil: whole).
func feed(r *Reader, in []byte, pieces []int) ([]msg, error) {
	var out []msg
	buf := append([]byte(nil), in...)
	for i := 0; len(buf) > 0; i++ {
		k := len(buf)
		if len(pieces) > 0 {
			k = min(pieces[i%len(pieces)], len(buf))
		}
		chunk := buf[:k]
		for len(chunk) > 0 {
			n, ready, err := r.Feed(chunk)
			if err != nil {
				return out, err
			}
			if n == 0 && !ready {
				break
			}
			chunk = chunk[n:]
			if ready {
				out = append(out, msg{r.Op, string(r.Payload())})
			}
		}
		buf = buf[k:]
	}
	// A zero-length frame completes without further bytes.
	if _, ready, err := r.Feed(nil); err != nil {
		return out, err
	} else if ready {
		out = append(out, msg{r.Op, string(r.Payload())})
	}
	return out, nil
}

func frame(op Opcode, fin bool, payload string) []byte {
	return AppendFrame(nil, op, fin, []byte(payload), false, [4]byte{})
}

func cat(parts ...[]byte) []byte { return bytes.Join(parts, nil) }

func TestReaderMessages(t *testing.T) {
	long := strings.Repeat("x", 70000)
	mid := strings.Repeat("y", 300)
	cases := []struct {
		name string
		in   []byte
		want []msg
	}{
		{"text", frame(OpText, true, "hello"), []msg{{OpText, "hello"}}},
		{"empty text", frame(OpText, true, ""), []msg{{OpText, ""}}},
		{"16-bit length", frame(OpBinary, true, mid), []msg{{OpBinary, mid}}},
		{"64-bit length", frame(OpBinary, true, long), []msg{{OpBinary, long}}},
		{"fragments", cat(frame(OpText, false, "he"), frame(OpContinuation, false, "l"), frame(OpContinuation, true, "lo")), []msg{{OpText, "hello"}}},
		{"ping between fragments", cat(frame(OpText, false, "he"), frame(OpPing, true, "p"), frame(OpContinuation, true, "llo")), []msg{{OpPing, "p"}, {OpText, "hello"}}},
		{"two messages", cat(frame(OpText, true, "a"), frame(OpBinary, true, "b")), []msg{{OpText, "a"}, {OpBinary, "b"}}},
		{"close with code", AppendClose(nil, 1000, "bye", false, [4]byte{}), []msg{{OpClose, "\x03\xe8bye"}}},
		{"empty close", frame(OpClose, true, ""), []msg{{OpClose, ""}}},
		{"pong", frame(OpPong, true, "x"), []msg{{OpPong, "x"}}},
	}
	for _, c := range cases {
		for _, pieces := range [][]int{nil, {1}, {3, 7}, {2, 1, 5}} {
			t.Run(c.name, func(t *testing.T) {
				var r Reader
				got, err := feed(&r, c.in, pieces)
				if err != nil {
					t.Fatalf("pieces %v: %v", pieces, err)
				}
				if len(got) != len(c.want) {
					t.Fatalf("pieces %v: got %d messages, want %d", pieces, len(got), len(c.want))
				}
				for i := range got {
					if got[i] != c.want[i] {
						t.Fatalf("pieces %v: message %d = %v %q, want %v %q", pieces, i, got[i].op, clipS(got[i].payload), c.want[i].op, clipS(c.want[i].payload))
					}
				}
			})
		}
	}
}

func clipS(s string) string {
	if len(s) > 20 {
		return s[:20] + "…"
	}
	return s
}

func TestReaderRejects(t *testing.T) {
	masked := AppendFrame(nil, OpText, true, []byte("hi"), true, key)
	cases := []struct {
		name string
		in   []byte
		want error
	}{
		{"reserved bits", []byte{0xC1, 0x00}, ErrProtocol},
		{"reserved opcode", []byte{0x83, 0x00}, ErrProtocol},
		{"masked from server", masked, ErrProtocol},
		{"fragmented ping", frame(OpPing, false, "x"), ErrProtocol},
		{"long ping", frame(OpPing, true, strings.Repeat("p", 126)), ErrProtocol},
		{"lone continuation", frame(OpContinuation, true, "x"), ErrProtocol},
		{"interleaved messages", cat(frame(OpText, false, "a"), frame(OpText, true, "b")), ErrProtocol},
		{"bad utf8", frame(OpText, true, "\xff\xfe"), ErrProtocol},
		{"bad utf8 across fragments", cat(frame(OpText, false, "\xe2\x82"), frame(OpContinuation, true, "x")), ErrProtocol},
		{"close 1-byte body", []byte{0x88, 0x01, 0x03}, ErrProtocol},
		{"close reserved code", AppendClose(nil, 1005, "", false, [4]byte{}), ErrProtocol},
		{"non-minimal 16-bit length", []byte{0x82, 126, 0, 5, 1, 2, 3, 4, 5}, ErrProtocol},
		{"64-bit top bit", []byte{0x82, 127, 0x80, 0, 0, 0, 0, 0, 0, 0}, ErrProtocol},
		{"too big", frame(OpBinary, true, strings.Repeat("z", DefaultMaxMessage+1)), ErrTooBig},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var r Reader
			_, err := feed(&r, c.in, nil)
			if !errors.Is(err, c.want) {
				t.Fatalf("err = %v, want %v", err, c.want)
			}
			if _, _, again := r.Feed([]byte{0x81}); !errors.Is(again, c.want) {
				t.Fatalf("error not sticky: %v", again)
			}
		})
	}
}

func TestServerReaderUnmasks(t *testing.T) {
	in := cat(AppendFrame(nil, OpText, false, []byte("hel"), true, key),
		AppendFrame(nil, OpPing, true, []byte("p"), true, [4]byte{1, 2, 3, 4}),
		AppendFrame(nil, OpContinuation, true, []byte("lo world"), true, [4]byte{9, 8, 7, 6}))
	for _, pieces := range [][]int{nil, {1}, {5}} {
		r := Reader{FromClient: true}
		got, err := feed(&r, in, pieces)
		if err != nil {
			t.Fatal(err)
		}
		want := []msg{{OpPing, "p"}, {OpText, "hello world"}}
		if len(got) != 2 || got[0] != want[0] || got[1] != want[1] {
			t.Fatalf("pieces %v: got %v", pieces, got)
		}
	}
	r := Reader{FromClient: true}
	if _, err := feed(&r, frame(OpText, true, "x"), nil); !errors.Is(err, ErrProtocol) {
		t.Fatalf("unmasked client frame: %v", err)
	}
}

func TestMaskPositions(t *testing.T) {
	src := []byte("The quick brown fox jumps over the lazy dog, twice over.")
	whole := append([]byte(nil), src...)
	Mask(whole, key, 0)
	for cut := 0; cut <= len(src); cut++ {
		b := append([]byte(nil), src...)
		pos := Mask(b[:cut], key, 0)
		Mask(b[cut:], key, pos)
		if !bytes.Equal(b, whole) {
			t.Fatalf("cut %d: masking in two pieces differs", cut)
		}
	}
	Mask(whole, key, 0)
	if !bytes.Equal(whole, src) {
		t.Fatal("masking twice is not the identity")
	}
}

func TestReaderDoesNotAllocate(t *testing.T) {
	in := cat(frame(OpText, true, `{"ctrl":{"id":"1","code":200}}`), frame(OpPing, true, "p"),
		frame(OpText, false, "ab"), frame(OpContinuation, true, "cd"))
	var r Reader
	feed(&r, in, []int{3}) // grow the buffer once
	allocs := testing.AllocsPerRun(100, func() {
		for b := in; len(b) > 0; {
			n, _, err := r.Feed(b[:min(len(b), 5)])
			if err != nil {
				t.Fatal(err)
			}
			b = b[n:]
		}
	})
	if allocs != 0 {
		t.Fatalf("%v allocations per run", allocs)
	}
}

// FuzzReader feeds arbitrary bytes in arbitrary splits, from both sides, and
// checks that the split never changes the messages or the error.
func FuzzReader(f *testing.F) {
	f.Add(cat(frame(OpText, false, "he"), frame(OpPing, true, "p"), frame(OpContinuation, true, "llo")), uint64(0x1234), false)
	f.Add(AppendClose(nil, 1001, "away", true, key), uint64(7), true)
	f.Add(frame(OpBinary, true, strings.Repeat("b", 200)), uint64(0xfff), false)
	f.Fuzz(func(t *testing.T, in []byte, split uint64, fromClient bool) {
		var pieces []int
		for s := split; s != 0; s >>= 4 {
			pieces = append(pieces, 1+int(s&15))
		}
		r1 := Reader{FromClient: fromClient, MaxMessage: 1 << 16}
		r2 := Reader{FromClient: fromClient, MaxMessage: 1 << 16}
		one, err1 := feed(&r1, in, nil)
		two, err2 := feed(&r2, in, pieces)
		if (err1 == nil) != (err2 == nil) || err1 != nil && err1.Error() != err2.Error() {
			t.Fatalf("split %v changed the error: %v / %v", pieces, err1, err2)
		}
		if len(one) != len(two) {
			t.Fatalf("split %v changed the message count: %d / %d", pieces, len(one), len(two))
		}
		for i := range one {
			if one[i] != two[i] {
				t.Fatalf("split %v changed message %d", pieces, i)
			}
			if one[i].op.IsControl() && len(one[i].payload) > MaxControlPayload {
				t.Fatalf("control payload of %d bytes", len(one[i].payload))
			}
		}
	})
}
