package grpc

import (
	"bytes"
	"errors"
	"testing"

	"pgregory.net/rapid"
)

// TestReaderCutsMessagesAnywhere feeds a stream of messages cut at every
// rapid-chosen boundary and checks the same messages come out in order.
func TestReaderCutsMessagesAnywhere(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		msgs := rapid.SliceOfN(rapid.SliceOfN(rapid.Byte(), 0, 300), 0, 8).Draw(t, "msgs")
		var wire []byte
		for i, m := range msgs {
			wire = AppendMessage(wire, m, i%2 == 1)
		}
		var r Reader
		var got [][]byte
		var flags []bool
		for len(wire) > 0 {
			n := rapid.IntRange(1, len(wire)).Draw(t, "cut")
			if err := r.Feed(wire[:n], func(m []byte, c bool) {
				got = append(got, bytes.Clone(m))
				flags = append(flags, c)
			}); err != nil {
				t.Fatal(err)
			}
			wire = wire[n:]
		}
		if r.Pending() {
			t.Fatal("a message is still pending after the whole stream")
		}
		if len(got) != len(msgs) {
			t.Fatalf("got %d messages, sent %d", len(got), len(msgs))
		}
		for i := range msgs {
			if !bytes.Equal(got[i], msgs[i]) || flags[i] != (i%2 == 1) {
				t.Fatalf("message %d: got %x (compressed %v), sent %x", i, got[i], flags[i], msgs[i])
			}
		}
	})
}

func TestReaderErrors(t *testing.T) {
	tests := []struct {
		name string
		wire []byte
		max  uint32
		want error
	}{
		{"flag 2", []byte{2, 0, 0, 0, 0}, 0, ErrFlag},
		{"over the limit", []byte{0, 0, 0, 0, 11}, 10, &TooLargeError{Len: 11, Max: 10}},
		{"over the default", []byte{0, 0, 0x40, 0, 1}, 0, &TooLargeError{Len: 4<<20 + 1, Max: 4 << 20}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := Reader{Max: tt.max}
			err := r.Feed(tt.wire, func([]byte, bool) { t.Fatal("no message expected") })
			var tl *TooLargeError
			switch {
			case errors.As(tt.want, &tl):
				var got *TooLargeError
				if !errors.As(err, &got) || *got != *tl {
					t.Fatalf("err = %v, want %v", err, tt.want)
				}
			case err != tt.want:
				t.Fatalf("err = %v, want %v", err, tt.want)
			}
			if again := r.Feed([]byte{0}, func([]byte, bool) {}); again != err && err.Error() != again.Error() {
				t.Fatalf("a later Feed returned %v, want the first error %v", again, err)
			}
		})
	}
}

func TestReaderPendingInsideAMessage(t *testing.T) {
	var r Reader
	wire := AppendMessage(nil, []byte("hello"), false)
	if err := r.Feed(wire[:7], func([]byte, bool) { t.Fatal("message is not complete") }); err != nil {
		t.Fatal(err)
	}
	if !r.Pending() {
		t.Fatal("Pending = false with 2 of 5 body bytes read")
	}
	r.Reset()
	if r.Pending() {
		t.Fatal("Pending after Reset")
	}
}

// FuzzReader: any bytes, cut anywhere, give the messages a whole feed
// gives, or the same error; never a panic.
func FuzzReader(f *testing.F) {
	f.Add(AppendMessage(AppendMessage(nil, []byte("a"), false), []byte("bc"), true), uint8(3))
	f.Add([]byte{0, 0, 0, 0, 0}, uint8(1))
	f.Add([]byte{3, 1, 2}, uint8(2))
	f.Fuzz(func(t *testing.T, wire []byte, cut uint8) {
		whole := Reader{Max: 1 << 16}
		var want []string
		wantErr := whole.Feed(wire, func(m []byte, c bool) { want = append(want, string(m)) })
		pieces := Reader{Max: 1 << 16}
		var got []string
		var err error
		step := int(cut%16) + 1
		for i := 0; i < len(wire) && err == nil; i += step {
			err = pieces.Feed(wire[i:min(i+step, len(wire))], func(m []byte, c bool) { got = append(got, string(m)) })
		}
		if (err == nil) != (wantErr == nil) {
			t.Fatalf("pieces err %v, whole err %v", err, wantErr)
		}
		if len(got) != len(want) {
			t.Fatalf("pieces gave %d messages, whole %d", len(got), len(want))
		}
		for i := range want {
			if got[i] != want[i] {
				t.Fatalf("message %d differs", i)
			}
		}
	})
}

// FuzzMessageEscaping: grpc-message's escaping round-trips any text, and
// its decoder takes any bytes without a panic.
func FuzzMessageEscaping(f *testing.F) {
	f.Add("no such user")
	f.Add("50% done\n")
	f.Add("%zz%4")
	f.Fuzz(func(t *testing.T, s string) {
		if got := DecodeMessage(EncodeMessage(s)); got != s {
			t.Fatalf("DecodeMessage(EncodeMessage(%q)) = %q", s, got)
		}
		_ = DecodeMessage(s)
		if d, ok := ParseTimeout(s); ok && d < 0 {
			t.Fatalf("ParseTimeout(%q) = %v", s, d)
		}
	})
}
