package session

import (
	"bytes"
	"encoding/json"
	"testing"
)

func TestFrameFind(t *testing.T) {
	doc := []byte(`{"ctrl":{"id":"tn-1-hi","params":{"ver":"0.22","n":[1,{"x":"a\"b"}]},"code":201,"text":"created"},"k\u0065y":true}`)
	cases := []struct {
		path, want string
		ok         bool
	}{
		{"ctrl.id", `"tn-1-hi"`, true},
		{"ctrl.code", `201`, true},
		{"ctrl.params.n[1].x", `"a\"b"`, true},
		{"ctrl.params.n[0]", `1`, true},
		{"ctrl.params.n[2]", ``, false},
		{"key", `true`, true},
		{"ctrl.missing", ``, false},
		{"ctrl.id.deeper", ``, false},
	}
	for _, c := range cases {
		p, err := ParseJSONPath(c.path)
		if err != nil {
			t.Fatal(err)
		}
		got, ok := FrameFind(doc, p)
		if ok != c.ok || string(got) != c.want {
			t.Errorf("%s: got %q %v, want %q %v", c.path, got, ok, c.want, c.ok)
		}
	}
	if txt, _ := JSONText([]byte(`"a\"b"`), nil); string(txt) != `a"b` {
		t.Errorf("jsonText unescape: %q", txt)
	}
	head, _ := ParseJSONPath("meta.sub")
	rest, _ := ParseJSONPath("topic")
	got, ok := JSONCollect([]byte(`{"meta":{"id":"1","sub":[{"topic":"grpA"},{"x":1},{"topic":"grpB"}]}}`), head, rest)
	if !ok || string(got) != `["grpA","grpB"]` {
		t.Errorf("collect: %s %v", got, ok)
	}
	items, ok := JSONArrayTexts(got, 10)
	if !ok || len(items) != 2 || string(items[1]) != "grpB" {
		t.Errorf("array texts: %q", items)
	}
}

func TestFrameFindDoesNotAllocate(t *testing.T) {
	doc := []byte(`{"data":{"topic":"grp","content":"x"},"ctrl":{"id":"abc","code":200}}`)
	p, _ := ParseJSONPath("ctrl.id")
	if n := testing.AllocsPerRun(100, func() { FrameFind(doc, p) }); n != 0 {
		t.Fatalf("%v allocations", n)
	}
}

// FuzzFrameFind checks jsonFind against encoding/json on valid documents:
// whatever it finds must be what a full decode finds there.
func FuzzFrameFind(f *testing.F) {
	f.Add([]byte(`{"a":{"b":[1,"x",{"c":null}]}}`), "a.b[2].c")
	f.Add([]byte(`{"ctrl":{"id":"1","code":200}}`), "ctrl.code")
	f.Fuzz(func(t *testing.T, doc []byte, path string) {
		p, err := ParseJSONPath(path)
		if err != nil {
			return
		}
		raw, ok := FrameFind(doc, p)
		if !json.Valid(doc) {
			return // no oracle; it must merely not panic
		}
		want := jsonLookup(doc, p)
		if !ok {
			if want != nil && !bytes.Equal(want, []byte("null")) {
				// jsonLookup takes the last of duplicate keys, jsonFind the first.
				var m any
				_ = json.Unmarshal(doc, &m)
				if !hasDuplicateKeys(doc) {
					t.Fatalf("frameFind missed %s in %s (decode found %s)", path, doc, want)
				}
			}
			return
		}
		txt, tok := JSONText(raw, nil)
		if !tok {
			return
		}
		var v any
		if json.Unmarshal(raw, &v) != nil {
			t.Fatalf("frameFind returned invalid JSON %q", raw)
		}
		if want != nil && !hasDuplicateKeys(doc) {
			var a, b any
			if raw[0] == '"' {
				if string(txt) != string(want) {
					t.Fatalf("%s: %q vs %q", path, txt, want)
				}
				return
			}
			_ = json.Unmarshal(raw, &a)
			_ = json.Unmarshal(want, &b)
			ja, _ := json.Marshal(a)
			jb, _ := json.Marshal(b)
			if !bytes.Equal(ja, jb) {
				t.Fatalf("%s: %s vs %s", path, ja, jb)
			}
		}
	})
}

// hasDuplicateKeys is a conservative check: any object key seen twice
// anywhere makes the two lookups legitimately disagree.
func hasDuplicateKeys(doc []byte) bool {
	d := json.NewDecoder(bytes.NewReader(doc))
	seen := map[string]int{}
	for {
		tok, err := d.Token()
		if err != nil {
			break
		}
		if s, ok := tok.(string); ok {
			seen[s]++
			if seen[s] > 1 {
				return true
			}
		}
	}
	return false
}

func TestMarksRoundTrip(t *testing.T) {
	m := AppendMark(nil, 0xbeef, 123456789, 42, 7)
	frame := []byte(`{"data":{"content":"This is a tressi test ` + string(m) + `","x":"tressi"}}`)
	var got []uint64
	FindMarks(frame, 0xdead, func(int64, uint64) { t.Error("another run's mark") })
	FindMarks(frame, 0xbeef, func(sent int64, key uint64) {
		if sent != 123456789 {
			t.Errorf("sent %d", sent)
		}
		got = append(got, key)
	})
	if len(got) != 1 || got[0] != 42<<16|7 {
		t.Fatalf("keys %x", got)
	}
}
