package check

import (
	"encoding/json"
	"testing"

	"github.com/tressi/tressi/compile"
	"github.com/tressi/tressi/exec/internal/session"
	"github.com/tressi/tressi/plan"
)

// fuzzProgram checks a body every way a body can be checked: JSON paths
// at several depths, texts, regexes (anchored and not) and sizes.
func fuzzProgram(t testing.TB) *Program {
	p, err := New([]compile.Check{
		jsonCheck("status", plan.CheckEquals, "ok"),
		jsonCheck("items[1].id", plan.CheckExists, ""),
		jsonCheck("a.b[0]", plan.CheckRegex, "^[0-9]"),
		jsonCheck("obj", plan.CheckContains, `"k"`),
		bodyCheck(plan.CheckContains, `"id"`),
		bodyCheck(plan.CheckRegex, `"i[a-z]":\s*"?[0-9]`),
		bodyCheck(plan.CheckRegex, `^\s*\{`),
		bodyCheck(plan.CheckRegex, `\}\s*$`),
		{Name: "size", Op: plan.CheckSize, MinSize: 8, MaxSize: 200},
	})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// FuzzMatcherChunking feeds a body whole and in the pieces cuts makes of
// it: the checks must come out the same. On a valid document the json
// checks must also agree with session.FrameFind, the awaits' lookup.
func FuzzMatcherChunking(f *testing.F) {
	f.Add([]byte(doc), []byte{3, 9, 1})
	f.Add([]byte(`{"status":"ok","items":[1,{"id":2}],"a":{"b":["7x"]},"obj":{"k":1}}`), []byte{1})
	f.Add([]byte(`{"status" : "o\"k", "a":{"b":[[1]]}}`), []byte{2, 5})
	f.Add([]byte(`[{"status":"ok"}]`), []byte{})
	f.Add([]byte(`{"status":`), []byte{1})
	p := fuzzProgram(f)
	f.Fuzz(func(t *testing.T, body, cuts []byte) {
		var whole, pieces Matcher
		whole.Start(p)
		whole.Body(body)
		want := whole.Finish()
		pieces.Start(p)
		rest := body
		for i := 0; len(rest) > 0; i++ {
			n := len(rest)
			if len(cuts) > 0 {
				n = min(int(cuts[i%len(cuts)])%17+1, len(rest))
			}
			pieces.Body(rest[:n])
			rest = rest[n:]
		}
		if got := pieces.Finish(); got != want {
			t.Fatalf("in pieces %b, whole %b (%s / %s)", got, want, pieces.Detail(), whole.Detail())
		}
		if !validJSON(body) {
			return
		}
		for i, c := range p.checks[:4] {
			path, _ := session.ParseJSONPath(c.Path)
			raw, found := session.FrameFind(body, path)
			text, present := session.JSONText(raw, nil)
			present = found && present
			var m Matcher
			one, _ := New([]compile.Check{c.Check})
			m.Start(one)
			m.judge(0, text, present)
			if m.failed != 0 != (want&(1<<i) != 0) {
				t.Fatalf("check %q: streamed failed=%v, FrameFind %q present=%v says failed=%v", c.Name, want&(1<<i) != 0, text, present, m.failed != 0)
			}
		}
	})
}

func validJSON(b []byte) bool { return json.Valid(b) }
