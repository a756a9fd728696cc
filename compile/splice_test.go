package compile

import (
	"encoding/json"
	"fmt"
	"net/url"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/tressi/tressi/plan"
	"pgregory.net/rapid"
)

// rowSplice is "/p/" + one row hole (column 0) + "/x" with the given flags.
func rowSplice(h Hole) Splice {
	h.Kind = plan.HoleRow
	return Splice{Segments: [][]byte{[]byte("/p/"), []byte("/x")}, Holes: []Hole{h}}
}

// TestSpliceAppendEscaping: what each escaping flag makes of a text value.
func TestSpliceAppendEscaping(t *testing.T) {
	uri := Hole{URIEscape: true}
	query := Hole{QueryEscape: true}
	for _, tc := range []struct {
		name  string
		hole  Hole
		value string
		want  string
	}{
		// URIEscape: only what a request-target cannot hold.
		{"uri plain", uri, "ann", "/p/ann/x"},
		{"uri space", uri, "John Doe", "/p/John%20Doe/x"},
		{"uri hash", uri, "a#b", "/p/a%23b/x"},
		{"uri percent passes", uri, "a%20b%2F", "/p/a%20b%2F/x"},
		{"uri slash passes", uri, "a/b/c", "/p/a/b/c/x"},
		{"uri query passes", uri, "a?q=1&r=2+3", "/p/a?q=1&r=2+3/x"},
		{"uri sub-delims pass", uri, "!$&'()*+,;=:@-._~", "/p/!$&'()*+,;=:@-._~/x"},
		{"uri non-ascii", uri, "é", "/p/%C3%A9/x"},
		{"uri controls", uri, "a\r\nb\tc\x00\x7f", "/p/a%0D%0Ab%09c%00%7F/x"},
		{"uri delimiters", uri, "\"<>[\\]^`{|}", "/p/%22%3C%3E%5B%5C%5D%5E%60%7B%7C%7D/x"},
		{"uri invalid utf8", uri, "\xff\xfe", "/p/%FF%FE/x"},
		{"uri empty", uri, "", "/p//x"},
		// QueryEscape: url.QueryEscape.
		{"query", query, "a b/c&d", "/p/a+b%2Fc%26d/x"},
		{"query only spaces", query, "  ", "/p/++/x"},
		{"query plain", query, "abc-_.~", "/p/abc-_.~/x"},
		{"query reserved", query, "é?#%+=", "/p/%C3%A9%3F%23%25%2B%3D/x"},
		{"query and uri", Hole{QueryEscape: true, URIEscape: true}, "a b/é", "/p/a+b%2F%C3%A9/x"},
		// jsonencode() inside a path: JSON-escaped, then URI-escaped.
		{"json and uri", Hole{JSONEscape: true, URIEscape: true}, "a \"b\"\n", "/p/a%20%5C%22b%5C%22%5Cn/x"},
		// No flag: sent as is, as a .tplan from before the flags holds it.
		{"none", Hole{}, "John Doe#1", "/p/John Doe#1/x"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sp := rowSplice(tc.hole)
			v := Values{Row: []string{tc.value}}
			if got := string(sp.Append(nil, &v)); got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
			// A captured value is escaped the same way.
			sp.Holes[0].Kind = plan.HoleCaptured
			v = Values{Captured: [][]byte{[]byte(tc.value)}}
			if got := string(sp.Append([]byte("prefix"), &v)); got != "prefix"+tc.want {
				t.Errorf("captured: got %q, want %q", got, "prefix"+tc.want)
			}
		})
	}
}

// TestSpliceEscapingNumeric: seq, random_int() and uuid() hold nothing to
// escape; the flags leave them as they are.
func TestSpliceEscapingNumeric(t *testing.T) {
	for _, kind := range []plan.HoleKind{plan.HoleSeq, plan.HoleRandomInt, plan.HoleUUID} {
		plain := Splice{Segments: [][]byte{[]byte("/"), nil}, Holes: []Hole{{Kind: kind, Min: -5, Max: 5, ID: 3}}}
		v := Values{Seed: 1, Slot: 42}
		want := string(plain.Append(nil, &v))
		for _, h := range []Hole{{URIEscape: true}, {QueryEscape: true}, {QueryEscape: true, URIEscape: true}} {
			h.Kind, h.Min, h.Max, h.ID = kind, -5, 5, 3
			sp := Splice{Segments: plain.Segments, Holes: []Hole{h}}
			if got := string(sp.Append(nil, &v)); got != want {
				t.Errorf("kind %d %+v: got %q, want %q", kind, h, got, want)
			}
		}
	}
}

// uriEscapeRef is the rule of URIEscape written plainly.
func uriEscapeRef(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 0x21 || c >= 0x7f || strings.IndexByte("\"#<>[\\]^`{|}", c) >= 0 {
			fmt.Fprintf(&b, "%%%02X", c)
		} else {
			b.WriteByte(c)
		}
	}
	return b.String()
}

// TestSpliceEscapingMatchesReference: for any bytes, QueryEscape fills what
// url.QueryEscape returns and URIEscape what the written rule says, and a
// URI-escaped value parses back, as a path, to the value itself.
func TestSpliceEscapingMatchesReference(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		s := string(rapid.SliceOf(rapid.Byte()).Draw(t, "value"))
		pre := rapid.SliceOfN(rapid.Byte(), 0, 8).Draw(t, "dst")
		v := Values{Row: []string{s}}
		q := Splice{Segments: [][]byte{nil, nil}, Holes: []Hole{{Kind: plan.HoleRow, QueryEscape: true}}}
		if got, want := string(q.Append(append([]byte(nil), pre...), &v)), string(pre)+url.QueryEscape(s); got != want {
			t.Fatalf("query: got %q, want %q", got, want)
		}
		u := Splice{Segments: [][]byte{nil, nil}, Holes: []Hole{{Kind: plan.HoleRow, URIEscape: true}}}
		got := string(u.Append(append([]byte(nil), pre...), &v))
		if want := string(pre) + uriEscapeRef(s); got != want {
			t.Fatalf("uri: got %q, want %q", got, want)
		}
		if !strings.Contains(s, "%") && !strings.Contains(s, "?") {
			p, err := url.PathUnescape(got[len(pre):])
			if err != nil || p != s {
				t.Fatalf("uri %q: unescapes to %q, %v", got, p, err)
			}
		}
	})
}

// Filling escaped holes does not allocate once dst has room.
func TestSpliceAppendEscapingNoAlloc(t *testing.T) {
	sp := Splice{
		Segments: [][]byte{[]byte("/u/"), []byte("?q="), []byte("&b="), nil},
		Holes: []Hole{
			{Kind: plan.HoleRow, Index: 0, URIEscape: true},
			{Kind: plan.HoleRow, Index: 1, QueryEscape: true, URIEscape: true},
			{Kind: plan.HoleCaptured, Index: 0, JSONEscape: true, URIEscape: true},
		},
	}
	v := Values{Row: []string{"John Doe é#", "a b/c&d"}, Captured: [][]byte{[]byte("x \"y\"")}}
	buf := make([]byte, 0, 256)
	if n := testing.AllocsPerRun(100, func() { buf = sp.Append(buf[:0], &v) }); n != 0 {
		t.Fatalf("%v allocs per Append", n)
	}
	if got, want := string(buf), "/u/John%20Doe%20%C3%A9%23?q=a+b%2Fc%26d&b=x%20%5C%22y%5C%22"; got != want {
		t.Fatalf("got %q, want %q", got, want)
	}
}

// The compiler marks text holes in the request URI, and only there, for URI
// escaping; urlencode() becomes QueryEscape. The flags reach the schedule
// hash and survive the .tplan's JSON request table, while a table written
// before they existed still reads, with every flag off.
func TestCompileEscapingFlags(t *testing.T) {
	fsys := fstest.MapFS{
		"p.hcl": {Data: []byte(`
target "t" { url = "http://127.0.0.1:9" }
data "users" { csv = "users.csv" }
endpoint "e" {
  path    = "/u/${row.name}/${seq}?q=${urlencode(row.q)}"
  headers = { x-name = row.name }
  body    = "${row.name} ${urlencode(row.q)}"
}
load {
  stage {
    duration = "1s"
    rate     = 3
  }
}
`)},
		"users.csv": {Data: []byte("name,q\nJohn Doe,a b/c&d\n")},
	}
	s := compileFS(t, fsys)
	req := &s.Requests[s.Entries[0].Steps[0].Request]
	uh := req.URI.Holes
	if len(uh) != 3 || !uh[0].URIEscape || uh[0].QueryEscape || uh[1].URIEscape || !uh[2].URIEscape || !uh[2].QueryEscape {
		t.Fatalf("URI holes %+v", uh)
	}
	if h := req.Headers[len(req.Headers)-1].Value.Holes[0]; h.URIEscape || h.QueryEscape {
		t.Fatalf("header hole %+v", h)
	}
	if bh := req.Body.Holes; bh[0].URIEscape || bh[0].QueryEscape || bh[1].URIEscape || !bh[1].QueryEscape {
		t.Fatalf("body holes %+v", bh)
	}
	v := Values{Slot: 7, Row: s.Row(0, 0)}
	if got, want := string(req.URI.Append(nil, &v)), "/u/John%20Doe/7?q=a+b%2Fc%26d"; got != want {
		t.Errorf("URI %q, want %q", got, want)
	}
	if got, want := string(req.Headers[len(req.Headers)-1].Value.Append(nil, &v)), "John Doe"; got != want {
		t.Errorf("header %q, want %q", got, want)
	}
	if got, want := string(req.Body.Append(nil, &v)), "John Doe a+b%2Fc%26d"; got != want {
		t.Errorf("body %q, want %q", got, want)
	}

	// Every flag changes the hash.
	base := encodeHeader(s)
	for _, flip := range []func(h *Hole){
		func(h *Hole) { h.URIEscape = !h.URIEscape },
		func(h *Hole) { h.QueryEscape = !h.QueryEscape },
		func(h *Hole) { h.JSONEscape = !h.JSONEscape },
	} {
		flip(&req.URI.Holes[0])
		if string(encodeHeader(s)) == string(base) {
			t.Error("flipping a flag left the hash encoding unchanged")
		}
		flip(&req.URI.Holes[0])
	}

	// JSON round trip, as in the .tplan header.
	js, err := json.Marshal(s.Requests)
	if err != nil {
		t.Fatal(err)
	}
	var back []Request
	if err := json.Unmarshal(js, &back); err != nil {
		t.Fatal(err)
	}
	if b := back[len(back)-1].URI.Holes; b[0] != uh[0] || b[1] != uh[1] || b[2] != uh[2] {
		t.Fatalf("round trip: %+v, want %+v", b, uh)
	}
	var old []Hole
	if err := json.Unmarshal([]byte(`[{"Kind":1,"Index":0,"Min":0,"Max":0,"JSONEscape":false,"ID":0}]`), &old); err != nil {
		t.Fatal(err)
	}
	if old[0].URIEscape || old[0].QueryEscape {
		t.Fatalf("old hole %+v", old[0])
	}
	sp := Splice{Segments: [][]byte{[]byte("/u/"), nil}, Holes: old}
	if got := string(sp.Append(nil, &Values{Row: []string{"John Doe"}})); got != "/u/John Doe" {
		t.Errorf("old hole fills %q", got)
	}
}
