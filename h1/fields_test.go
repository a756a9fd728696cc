package h1

import (
	"slices"
	"testing"
)

func TestFieldValues(t *testing.T) {
	for _, tc := range []struct {
		head, name string
		want       []string
	}{
		{"HTTP/1.1 200 OK\r\nSet-Cookie: a=1\r\nX: y\r\nset-cookie:  b=2 \t\r\n", "Set-Cookie", []string{"a=1", "b=2"}},
		{"HTTP/2 401\r\nwww-authenticate: Digest realm=\"r\"\r\n", "WWW-Authenticate", []string{`Digest realm="r"`}},
		{"HTTP/1.1 200 OK\nA: 1\rB: 2\n", "a", []string{"1"}},              // bare LF and CR end lines
		{"HTTP/1.1 200 OK\r\nSet-Cookie: a\r\n", "Set-Cookie2", nil},       // the whole name, not a prefix
		{"Set-Cookie: in the status line\r\n", "set-cookie", nil},          // the first line is the status line
		{"HTTP/1.1 200 OK\r\nNoColon\r\n: empty name\r\n", "nocolon", nil}, // a line without a field
	} {
		var got []string
		for v := range FieldValues([]byte(tc.head), tc.name) {
			got = append(got, string(v))
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("FieldValues(%q, %q) = %q, want %q", tc.head, tc.name, got, tc.want)
		}
	}
}

func TestFieldValuesAllocatesNothing(t *testing.T) {
	head := []byte("HTTP/1.1 200 OK\r\nContent-Length: 2\r\nSet-Cookie: a=1\r\n")
	n := 0
	if allocs := testing.AllocsPerRun(100, func() {
		for range FieldValues(head, "set-cookie") {
			n++
		}
	}); allocs != 0 {
		t.Fatalf("%v allocations a scan", allocs)
	}
}
