package session

import (
	"bytes"
	"testing"
)

// The in-place scanner answers what decoding the document answers, for
// any body and any path.
func FuzzJSONLookup(f *testing.F) {
	for _, seed := range []struct{ body, path string }{
		{`{"data":{"token":"abc","n":4.50,"ok":true,"none":null,"empty":"","items":[{"id":7},{"id":"x"}]}}`, "data.token"},
		{`{"data":{"token":"abc","n":4.50}}`, "data.n"},
		{`{"a":[1,2,{"b":"c\"d"}]}`, "a[2].b"},
		{`{"a":1,"a":2}`, "a"},
		{` {"a" : { "b" : [ true , false ] } } `, "a.b[1]"},
		{`{"a":{"b":1}}`, "a"},
		{`[1,[2,[3]]]`, "[1][1][0]"},
		{`{"a":1} trailing`, "a"},
		{`{"k\u0061":1}`, "ka"},
		{`"just a string"`, "a"},
		{`{"a":"\u00e9t\u00e9"}`, "a"},
		{`{"a":-1.5e+3}`, "a"},
	} {
		f.Add(seed.body, seed.path)
	}
	f.Fuzz(func(t *testing.T, body, expr string) {
		path, err := ParseJSONPath(expr)
		if err != nil {
			return
		}
		got, want := jsonLookup([]byte(body), path), jsonLookupDecoded([]byte(body), path)
		if !bytes.Equal(got, want) || (got == nil) != (want == nil) {
			t.Fatalf("body %q path %q: scanner %q, decoder %q", body, expr, got, want)
		}
	})
}

// A capture on the scanner's path allocates nothing.
func TestJSONLookupAllocatesNothing(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector's instrumentation allocates")
	}
	body := []byte(`{"user":"bench","token":"eyJhbGciOi.xyz","expires":3600,"roles":["a","b"]}`)
	path, _ := ParseJSONPath("token")
	if n := testing.AllocsPerRun(100, func() { jsonLookup(body, path) }); n != 0 {
		t.Fatalf("%v allocations per lookup", n)
	}
}

// headerValue never panics, and what it returns is a piece of one header
// line of the head, without line ends or surrounding blanks.
func FuzzHeaderValue(f *testing.F) {
	f.Add("HTTP/1.1 200 OK\r\nX-Token: abc\r\n\r\n", "x-token")
	f.Add("HTTP/1.1 200 OK\r\nX-Token:\r\nX-Token: b\r\n", "X-TOKEN")
	f.Add("garbage", "a")
	f.Fuzz(func(t *testing.T, head, name string) {
		v := headerValue([]byte(head), name)
		if v == nil {
			return
		}
		if bytes.ContainsAny(v, "\r\n") || !bytes.Contains([]byte(head), v) ||
			(len(v) > 0 && (v[0] == ' ' || v[0] == '\t' || v[len(v)-1] == ' ' || v[len(v)-1] == '\t')) {
			t.Fatalf("head %q name %q: value %q", head, name, v)
		}
	})
}
