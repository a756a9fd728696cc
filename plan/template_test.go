package plan

import (
	"fmt"
	"strings"
	"testing"
	"testing/fstest"

	"pgregory.net/rapid"
)

// loadEndpoint loads a plan with one endpoint built from attrs and returns it.
func loadEndpoint(t *testing.T, attrs string) (*Endpoint, string) {
	t.Helper()
	return loadEndpointWith(t, attrs, fstest.MapFS{"users.csv": {Data: []byte("name,id\nann,1\n")}})
}

// loadEndpointWith is loadEndpoint with files beside the plan (its data
// block reads users.csv).
func loadEndpointWith(t *testing.T, attrs string, fsys fstest.MapFS) (*Endpoint, string) {
	t.Helper()
	fsys["p.hcl"] = &fstest.MapFile{Data: []byte(`
target "api" { url = "http://x" }
data "users" { csv = "users.csv" }
endpoint "e" {
` + attrs + `
}
load {
  stage {
    duration = "1s"
    rate     = 1
  }
}`)}
	p, _, diags := Load(Options{Path: "p.hcl", FS: fsys})
	if diags.HasErrors() {
		return nil, describe(diags)
	}
	return p.Endpoints[0], ""
}

// render shows a template with holes as {kind:name} ({kind:name:json} when
// JSON-escaped, {kind:name:url} when URL-encoded), so expectations read like
// the template itself.
func render(tpl Template) string {
	var b strings.Builder
	kinds := map[HoleKind]string{HoleRow: "row", HoleCaptured: "captured", HoleSeq: "seq", HoleUUID: "uuid", HoleRandomInt: "random_int"}
	for _, p := range tpl.Parts {
		if p.Hole == nil {
			b.WriteString(p.Literal)
			continue
		}
		b.WriteString("{" + kinds[p.Hole.Kind])
		if p.Hole.Name != "" {
			b.WriteString(":" + p.Hole.Name)
		}
		if p.Hole.Kind == HoleRandomInt {
			fmt.Fprintf(&b, ":%d,%d", p.Hole.Min, p.Hole.Max)
		}
		if p.Hole.JSONEscape {
			b.WriteString(":json")
		}
		if p.Hole.URLEncode {
			b.WriteString(":url")
		}
		b.WriteString("}")
	}
	return b.String()
}

func TestTemplateHoles(t *testing.T) {
	for _, tc := range []struct {
		body, want, err string
	}{
		{body: `"static"`, want: "static"},
		{body: `"id=${row.id}&n=${seq}"`, want: "id={row:id}&n={seq}"},
		{body: `"${row.name}${row.name}"`, want: "{row:name}{row:name}"},
		{body: `row["name"]`, want: "{row:name}"},
		{body: `"${uuid()}-${random_int(1, 6)}"`, want: "{uuid}-{random_int:1,6}"},
		{body: `format("%s/%s", row.name, "x")`, want: "{row:name}/x"},
		{body: `join(",", [row.id, seq])`, want: "{row:id},{seq}"},
		{body: `jsonencode({ user = row.name, n = 1 })`, want: `{"n":1,"user":"{row:name:json}"}`},
		{body: `jsonencode(["a${row.id}b", seq])`, want: `["a{row:id:json}b",{seq:json}]`},
		{body: `jsonencode({n = random_int(1, 6), s = "x${seq}"})`, want: `{"n":{random_int:1,6:json},"s":"x{seq:json}"}`},
		{body: `jsonencode(jsondecode("{\"k\": \"v\"}"))`, want: `{"k":"v"}`},
		{body: `"${jsonencode(row.name)} then ${row.name}"`, want: `"{row:name:json}" then {row:name}`},
		{body: `upper(row.name)`, err: "upper() cannot use a per-request value"},
		{body: `base64encode(seq)`, err: "base64encode() cannot use a per-request value"},
		{body: `jsonencode(jsonencode(row.name))`, err: "JSON-encoded twice"},
		{body: `urlencode(row.name)`, want: "{row:name:url}"},
		{body: `urlencode("a b/${row.name}&")`, want: "a+b%2F{row:name:url}%26"},
		{body: `"${urlencode(row.name)}=${row.name}"`, want: "{row:name:url}={row:name}"},
		{body: `"${urlencode(seq)}/${urlencode(random_int(1, 6))}/${urlencode(uuid())}"`, want: "{seq:url}/{random_int:1,6:url}/{uuid:url}"},
		{body: `urlencode(format("%s %s", row.name, row.id))`, want: "{row:name:url}+{row:id:url}"},
		{body: `urlencode("\uE000")`, want: "%EE%80%80"},
		{body: `urlencode(urlencode(row.name))`, err: "cannot be URL-encoded twice"},
		{body: `urlencode("x${urlencode(seq)}")`, err: "cannot be URL-encoded twice"},
		{body: `jsonencode(urlencode(row.name))`, err: "cannot be JSON-encoded after urlencode()"},
		{body: `jsonencode({q = urlencode(row.name)})`, err: "cannot be JSON-encoded after urlencode()"},
		{body: `urlencode(jsonencode(row.name))`, err: "cannot be URL-encoded after jsonencode()"},
		{body: `urlencode(jsonencode({n = seq}))`, err: "cannot be URL-encoded after jsonencode()"},
		{body: `random_int(5, 1)`, err: "must not be less than min"},
		{body: `random_int(1.5, 2)`, err: "whole number"},
		{body: `row.nope`, err: "its columns are: name, id"},
		{body: `"\uE000"`, want: "\uE000"},
		{body: `"\uE0000\uE001"`, want: "\uE0000\uE001"},
	} {
		t.Run(tc.body, func(t *testing.T) {
			e, errs := loadEndpoint(t, "body = "+tc.body)
			if tc.err != "" {
				if !strings.Contains(errs, tc.err) {
					t.Fatalf("want error %q, got %q", tc.err, errs)
				}
				return
			}
			if errs != "" {
				t.Fatal(errs)
			}
			if got := render(e.Body); got != tc.want {
				t.Errorf("got %s, want %s", got, tc.want)
			}
		})
	}
}

// urlencode() in a path keeps the per-request value, marked to be filled
// query-escaped, and escapes the literal text around it now.
func TestURLEncodePath(t *testing.T) {
	fsys := fstest.MapFS{
		"p.hcl": {Data: []byte(`
target "api" { url = "http://x" }
data "d" { csv = "d.csv" }
endpoint "e" { path = "/search?q=${urlencode(row.q)}&t=${urlencode("a&b")}" }
load {
  stage {
    duration = "1s"
    rate     = 1
  }
}`)},
		"d.csv": {Data: []byte("q\nJohn Doe\n")},
	}
	p, _, diags := Load(Options{Path: "p.hcl", FS: fsys})
	if diags.HasErrors() {
		t.Fatal(describe(diags))
	}
	path := p.Endpoints[0].Path
	if got, want := render(path), "/search?q={row:q:url}&t=a%26b"; got != want {
		t.Fatalf("got %s, want %s", got, want)
	}
	if h := path.Parts[1].Hole; h == nil || !h.URLEncode || h.JSONEscape {
		t.Fatalf("hole %+v", h)
	}
}

// TestTemplateSplitRoundTrip: splitting a string of literals and sentinels
// gives back the literals and holes in order, with adjacent literals merged.
func TestTemplateSplitRoundTrip(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		var table holeTable
		var want []Part
		var s strings.Builder
		n := rapid.IntRange(0, 8).Draw(t, "parts")
		for i := 0; i < n; i++ {
			if rapid.Bool().Draw(t, "hole") {
				h := Hole{Kind: HoleRow, Name: rapid.StringMatching(`[a-z]{1,4}`).Draw(t, "name")}
				s.WriteString(table.sentinel(h))
				want = append(want, Part{Hole: &h})
				continue
			}
			lit := rapid.StringMatching(`[a-z/{}"\\ ]{1,6}`).Draw(t, "lit")
			s.WriteString(lit)
			if k := len(want); k > 0 && want[k-1].Hole == nil {
				want[k-1].Literal += lit
			} else {
				want = append(want, Part{Literal: lit})
			}
		}
		got := table.template(s.String())
		if len(got.Parts) != len(want) {
			t.Fatalf("got %d parts, want %d", len(got.Parts), len(want))
		}
		for i := range want {
			g, w := got.Parts[i], want[i]
			if g.Literal != w.Literal || (g.Hole == nil) != (w.Hole == nil) || g.Hole != nil && *g.Hole != *w.Hole {
				t.Fatalf("part %d: got %+v, want %+v", i, g, w)
			}
		}
	})
}
