package check

import (
	"strings"
	"testing"

	"github.com/tressi/tressi/compile"
	"github.com/tressi/tressi/plan"
)

func jsonCheck(path string, op plan.CheckOp, value string) compile.Check {
	return compile.Check{Name: "c", Subject: plan.CheckJSON, Path: path, Op: op, Value: value, Exists: true, MinSize: -1, MaxSize: -1}
}

func bodyCheck(op plan.CheckOp, value string) compile.Check {
	return compile.Check{Name: "c", Op: op, Value: value, MinSize: -1, MaxSize: -1}
}

const doc = `{"status":"ok","n":42,"neg":-1.5e3,"t":true,"z":null,
 "items":[{"id":"17","tags":["a","b"]},{"id":"x\"y","deep":{"k":[1,[2,3],{"q":"r"}]}}],
 "esc\u0041key":"v\u00e9","obj":{"a":1, "b" : [ ]},"dup":"first","dup":"second"}`

// Each form of check, holding and failing, on one document fed whole and
// byte by byte.
func TestMatcherForms(t *testing.T) {
	for _, tc := range []struct {
		name  string
		check compile.Check
		body  string
		ok    bool
	}{
		{"string equals", jsonCheck("status", plan.CheckEquals, "ok"), doc, true},
		{"string differs", jsonCheck("status", plan.CheckEquals, "ko"), doc, false},
		{"number", jsonCheck("n", plan.CheckEquals, "42"), doc, true},
		{"number text", jsonCheck("neg", plan.CheckEquals, "-1.5e3"), doc, true},
		{"bool", jsonCheck("t", plan.CheckEquals, "true"), doc, true},
		{"null is absent", jsonCheck("z", plan.CheckExists, ""), doc, false},
		{"array element", jsonCheck("items[0].id", plan.CheckEquals, "17"), doc, true},
		{"second element escaped", jsonCheck("items[1].id", plan.CheckEquals, `x"y`), doc, true},
		{"nested arrays", jsonCheck("items[1].deep.k[1][1]", plan.CheckEquals, "3"), doc, true},
		{"object in array", jsonCheck("items[1].deep.k[2].q", plan.CheckEquals, "r"), doc, true},
		{"index past the end", jsonCheck("items[2].id", plan.CheckExists, ""), doc, false},
		{"escaped key", jsonCheck("escAkey", plan.CheckEquals, "vé"), doc, true},
		{"object text", jsonCheck("obj", plan.CheckEquals, `{"a":1, "b" : [ ]}`), doc, true},
		{"array regex", jsonCheck("items[0].tags", plan.CheckRegex, `^\["a",`), doc, true},
		{"value regex", jsonCheck("items[0].id", plan.CheckRegex, `^[0-9]+$`), doc, true},
		{"value regex fails", jsonCheck("status", plan.CheckRegex, `^[0-9]+$`), doc, false},
		{"value contains", jsonCheck("status", plan.CheckContains, "k"), doc, true},
		{"first duplicate", jsonCheck("dup", plan.CheckEquals, "first"), doc, true},
		{"absent key", jsonCheck("nope", plan.CheckExists, ""), doc, false},
		{"not exists holds", compile.Check{Name: "c", Subject: plan.CheckJSON, Path: "nope", Op: plan.CheckExists, MinSize: -1, MaxSize: -1}, doc, true},
		{"not exists fails", compile.Check{Name: "c", Subject: plan.CheckJSON, Path: "n", Op: plan.CheckExists, MinSize: -1, MaxSize: -1}, doc, false},
		{"not JSON", jsonCheck("status", plan.CheckExists, ""), `<html>status</html>`, false},
		{"truncated", jsonCheck("later", plan.CheckExists, ""), `{"a":1,"later`, false},
		{"root scalar", jsonCheck("a", plan.CheckExists, ""), `42`, false},
		{"root array", jsonCheck("[1]", plan.CheckEquals, "b"), `["a","b"]`, true},
		{"contains", bodyCheck(plan.CheckContains, `"id":"17"`), doc, true},
		{"contains fails", bodyCheck(plan.CheckContains, "absent text"), doc, false},
		{"regex", bodyCheck(plan.CheckRegex, `"tags":\["a","b"\]`), doc, true},
		{"regex fails", bodyCheck(plan.CheckRegex, `"tags":\["b"`), doc, false},
		{"regex anchored start", bodyCheck(plan.CheckRegex, `^\{"status"`), doc, true},
		{"regex anchored start fails", bodyCheck(plan.CheckRegex, `^"status"`), doc, false},
		{"regex anchored end", bodyCheck(plan.CheckRegex, `"second"\}$`), doc, true},
		{"regex anchored end fails", bodyCheck(plan.CheckRegex, `"first"\}$`), doc, false},
		{"min size", compile.Check{Name: "c", Op: plan.CheckSize, MinSize: 10, MaxSize: -1}, doc, true},
		{"min size fails", compile.Check{Name: "c", Op: plan.CheckSize, MinSize: 10000, MaxSize: -1}, doc, false},
		{"max size fails", compile.Check{Name: "c", Op: plan.CheckSize, MinSize: -1, MaxSize: 10}, doc, false},
		{"empty body size", compile.Check{Name: "c", Op: plan.CheckSize, MinSize: -1, MaxSize: 0}, "", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, err := New([]compile.Check{tc.check})
			if err != nil {
				t.Fatal(err)
			}
			var m Matcher
			for _, step := range []int{len(tc.body) + 1, 1, 3, 7} {
				m.Start(p)
				feed(&m, tc.body, step)
				failed := m.Finish()
				if (failed == 0) != tc.ok {
					t.Errorf("fed in pieces of %d: failed %b, want ok %v (%s)", step, failed, tc.ok, m.Detail())
				}
			}
		})
	}
}

func feed(m *Matcher, body string, step int) {
	for len(body) > 0 {
		n := min(step, len(body))
		m.Body([]byte(body[:n]))
		body = body[n:]
	}
}

// Header checks read the first value of a header, in any case.
func TestMatcherHeaders(t *testing.T) {
	head := "HTTP/1.1 200 OK\r\nContent-Type: application/json; charset=utf-8\r\nX-A: 1\r\nX-A: 2\r\n\r\n"
	hc := func(name string, op plan.CheckOp, v string, exists bool) compile.Check {
		return compile.Check{Name: "h", Subject: plan.CheckHeader, Path: name, Op: op, Value: v, Exists: exists, MinSize: -1, MaxSize: -1}
	}
	for _, tc := range []struct {
		check compile.Check
		ok    bool
	}{
		{hc("content-type", plan.CheckContains, "application/json", false), true},
		{hc("Content-Type", plan.CheckRegex, "^text/", false), false},
		{hc("X-A", plan.CheckEquals, "1", false), true},
		{hc("X-A", plan.CheckEquals, "2", false), false},
		{hc("X-B", plan.CheckExists, "", true), false},
		{hc("X-B", plan.CheckExists, "", false), true},
		{hc("X-B", plan.CheckEquals, "", false), false},
	} {
		p, _ := New([]compile.Check{tc.check})
		var raw, fields Matcher
		raw.Start(p)
		raw.Head([]byte(head))
		fields.Start(p)
		fields.Field("content-type", []byte("application/json; charset=utf-8"))
		fields.Field("x-a", []byte("1"))
		fields.Field("x-a", []byte("2"))
		for name, m := range map[string]*Matcher{"raw head": &raw, "fields": &fields} {
			if failed := m.Finish(); (failed == 0) != tc.ok {
				t.Errorf("%s: %+v: ok %v, want %v", name, tc.check, failed == 0, tc.ok)
			}
		}
	}
}

// A body regex finds a match wherever it lies in a long body arriving in
// pieces, across the pieces' boundaries; so does contains.
func TestMatcherLongBody(t *testing.T) {
	body := strings.Repeat("x", 3*Window+17) + "needle-123" + strings.Repeat("y", Window)
	p, _ := New([]compile.Check{bodyCheck(plan.CheckRegex, `needle-[0-9]+`), bodyCheck(plan.CheckContains, "needle-123"),
		{Name: "size", Op: plan.CheckSize, MinSize: int64(len(body)), MaxSize: int64(len(body))}})
	var m Matcher
	for _, step := range []int{len(body), 4096, Window - 3, 5} {
		m.Start(p)
		feed(&m, body, step)
		if failed := m.Finish(); failed != 0 {
			t.Errorf("pieces of %d: %s", step, m.Detail())
		}
	}
}

// The detail names the first failed check and says why.
func TestMatcherDetail(t *testing.T) {
	p, _ := New([]compile.Check{
		{Name: "first_ok", Op: plan.CheckContains, Value: "status", MinSize: -1, MaxSize: -1},
		{Name: "status_ok", Subject: plan.CheckJSON, Path: "status", Op: plan.CheckEquals, Value: "fine", MinSize: -1, MaxSize: -1},
		{Name: "small", Op: plan.CheckSize, MinSize: -1, MaxSize: 3},
	})
	var m Matcher
	m.Start(p)
	m.Body([]byte(doc))
	if failed := m.Finish(); failed != 0b110 {
		t.Fatalf("failed %b", failed)
	}
	want := `check "status_ok" failed: json "status" does not equal "fine" (got "ok")`
	if got := m.Detail(); got != want {
		t.Errorf("detail %q, want %q", got, want)
	}
}

// Once warm, a matcher allocates nothing per response.
func TestMatcherAllocatesNothing(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector's instrumentation allocates")
	}
	p, _ := New([]compile.Check{
		jsonCheck("items[1].deep.k[2].q", plan.CheckEquals, "r"),
		jsonCheck("status", plan.CheckRegex, "^o"),
		bodyCheck(plan.CheckContains, `"dup"`),
		bodyCheck(plan.CheckRegex, `"tags":\[`),
		{Name: "size", Op: plan.CheckSize, MinSize: 1, MaxSize: 1 << 20},
	})
	var m Matcher
	body := []byte(doc) // escaped keys and strings included
	run := func() {
		m.Start(p)
		for b := body; len(b) > 0; b = b[min(40, len(b)):] {
			m.Body(b[:min(40, len(b))])
		}
		if m.Finish() != 0 {
			t.Fatal(m.Detail())
		}
	}
	run()
	if n := testing.AllocsPerRun(100, run); n != 0 {
		t.Errorf("%v allocations per response", n)
	}
}
