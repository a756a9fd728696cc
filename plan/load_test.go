package plan

import (
	"reflect"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/hashicorp/hcl/v2"
)

func mustLoad(t *testing.T, opts Options) *Plan {
	t.Helper()
	p, _, diags := Load(opts)
	if diags.HasErrors() {
		t.Fatalf("unexpected errors:\n%s", describe(diags))
	}
	return p
}

func TestFullPlanDecodes(t *testing.T) {
	p := mustLoad(t, Options{Path: "testdata/valid/full.hcl"})
	if p.Name != "full" {
		t.Errorf("Name = %q", p.Name)
	}
	for _, src := range []string{"testdata/valid/full.hcl", "testdata/valid/users.csv"} {
		if len(p.Sources[src]) == 0 {
			t.Errorf("Sources lacks %s (has %v)", src, mapKeys(p.Sources))
		}
	}
	tg := p.Targets[0]
	if tg.URL.String() != "http://127.0.0.1:8080" || tg.Connections != 64 || tg.Timeout != time.Second ||
		tg.ConnectTimeout != 500*time.Millisecond || !tg.InsecureSkipVerify || tg.Headers[0].Name != "User-Agent" {
		t.Errorf("target = %+v", tg)
	}
	home, create := p.Endpoints[0], p.Endpoints[1]
	if home.Method != "GET" || home.Weight != 3 || !reflect.DeepEqual(home.Expect, []int{200}) || home.Path.Literal() != "/" || home.Target != "api" {
		t.Errorf("home = %+v", home)
	}
	if create.Method != "POST" || create.MaxRate != 200 || create.Weight != 1 {
		t.Errorf("create = %+v", create)
	}
	s := p.Scenarios[0]
	if s.Data != "users" || s.Weight != 2 || s.Think != 50*time.Millisecond || len(s.Steps) != 2 {
		t.Errorf("scenario = %+v", s)
	}
	if s.Steps[0].Think != -1 || s.Steps[1].Repeat != 10 || s.Steps[1].Think != 100*time.Millisecond {
		t.Errorf("steps = %+v %+v", s.Steps[0], s.Steps[1])
	}
	wantCaps := []Capture{{Name: "sid", Kind: CaptureHeader, Expr: "X-Session"}, {Name: "token", Kind: CaptureJSON, Expr: "token"}}
	for i := range s.Steps[0].Captures {
		s.Steps[0].Captures[i].DeclRange = hcl.Range{}
	}
	if !reflect.DeepEqual(s.Steps[0].Captures, wantCaps) {
		t.Errorf("captures = %+v", s.Steps[0].Captures)
	}
	d := p.Data[0]
	if d.Order != DataRandom || !reflect.DeepEqual(d.Columns, []string{"username", "password"}) || !reflect.DeepEqual(d.Rows[1], []string{"bob", "b,2"}) {
		t.Errorf("data = %+v", d)
	}
	ld := p.Load
	if ld.Model != ModelOpen || ld.Arrival != ArrivalPoisson || ld.Seed != 42 || len(ld.Stages) != 2 ||
		ld.Stages[0] != (Stage{Duration: 10 * time.Second, From: 1, To: 10, DeclRange: ld.Stages[0].DeclRange}) ||
		ld.Stages[1].From != 10 || ld.Stages[1].To != 10 {
		t.Errorf("load = %+v", ld)
	}
	th := p.Thresholds
	if th.ErrorRate != 0.05 || th.ErrorCount != 1000 || !reflect.DeepEqual(th.StatusCodes, []int{500, 503}) || th.P99 != 250*time.Millisecond || th.Abort {
		t.Errorf("thresholds = %+v", th)
	}
	if v := p.Variables[1]; !v.Sensitive || v.Value.IsMarked() || v.Value.AsString() != "s3cret" {
		t.Errorf("token variable = %+v", p.Variables[1])
	}
}

func TestDefaults(t *testing.T) {
	fsys := fstest.MapFS{"p.hcl": {Data: []byte(`
target "api" { url = "https://example.com/base" }
endpoint "home" {}
endpoint "post" { body = "x" }
load {
  stage {
    duration = "1s"
    rate     = 1
  }
}`)}}
	p := mustLoad(t, Options{Path: "p.hcl", FS: fsys})
	tg := p.Targets[0]
	if tg.Connections != DefaultConnections || tg.Connection != ConnectionPool || tg.Timeout != DefaultTimeout || tg.ConnectTimeout != DefaultConnectTimeout {
		t.Errorf("target defaults = %+v", tg)
	}
	e := p.Endpoints[0]
	if e.Method != "GET" || e.Path.Literal() != "/" || e.Weight != 1 || e.Target != "api" || !e.Body.Static() {
		t.Errorf("endpoint defaults = %+v", e)
	}
	if p.Endpoints[1].Method != "POST" {
		t.Errorf("a body should default the method to POST, got %s", p.Endpoints[1].Method)
	}
	ld := p.Load
	if ld.Model != ModelOpen || ld.Selection != SelectWeighted || ld.Arrival != ArrivalUniform || ld.Seed != 1 {
		t.Errorf("load defaults = %+v", ld)
	}
	if p.Thresholds != nil {
		t.Errorf("no thresholds block should leave Thresholds nil")
	}
}

func TestDirectoryPlan(t *testing.T) {
	fsys := fstest.MapFS{
		"smoke/a.hcl":      {Data: []byte(`target "api" { url = "http://x" }`)},
		"smoke/b.hcl.json": {Data: []byte(`{"endpoint": {"home": {"path": "/"}}}`)},
		"smoke/c.hcl":      {Data: []byte("load {\n stage {\n duration = \"1s\"\n rate = 1\n }\n}")},
		"smoke/notes.txt":  {Data: []byte("ignored")},
	}
	p, files, diags := Load(Options{Path: "smoke", FS: fsys})
	if diags.HasErrors() {
		t.Fatal(describe(diags))
	}
	if p.Name != "smoke" || len(files) != 3 || len(p.Sources) != 3 || len(p.Endpoints) != 1 {
		t.Errorf("name %q, %d files, %d sources, %d endpoints", p.Name, len(files), len(p.Sources), len(p.Endpoints))
	}
}

func TestMissingDefaultPlan(t *testing.T) {
	_, _, diags := Load(Options{FS: fstest.MapFS{}})
	if !diags.HasErrors() || !strings.Contains(diags[0].Detail, "tressi init") {
		t.Errorf("want a hint to run tressi init, got %v", diags)
	}
}

func TestFileFunctionIsASource(t *testing.T) {
	fsys := fstest.MapFS{
		"plans/p.hcl": {Data: []byte(`
target "api" { url = "http://x" }
endpoint "e" { body = file("body.json") }
load {
  stage {
    duration = "1s"
    rate     = 1
  }
}`)},
		"plans/body.json": {Data: []byte(`{"a":1}`)},
	}
	p := mustLoad(t, Options{Path: "plans/p.hcl", FS: fsys})
	if p.Endpoints[0].Body.Literal() != `{"a":1}` || string(p.Sources["plans/body.json"]) != `{"a":1}` {
		t.Errorf("body %q, sources %v", p.Endpoints[0].Body.Literal(), mapKeys(p.Sources))
	}
}

// TestSensitiveValuesStayOutOfDiagnostics sets a secret that breaks several
// settings and checks that no diagnostic repeats it.
func TestSensitiveValuesStayOutOfDiagnostics(t *testing.T) {
	const secret = "hunter2-secret"
	fsys := fstest.MapFS{"p.hcl": {Data: []byte(`
variable "token" {
  type      = string
  sensitive = true
}
target "api" {
  url        = var.token
  connection = var.token
  timeout    = var.token
}
endpoint "e" { method = "${var.token} x" }
load {
  seed = var.token
  stage {
    duration = var.token
    rate     = 1
  }
}`)}}
	_, _, diags := Load(Options{Path: "p.hcl", FS: fsys, Env: []string{"TRESSI_VAR_token=" + secret}})
	if len(diags) < 5 {
		t.Fatalf("expected a diagnostic per misuse, got:\n%s", describe(diags))
	}
	for _, d := range diags {
		if strings.Contains(d.Summary+d.Detail, secret) {
			t.Errorf("diagnostic leaks the secret: %s: %s", d.Summary, d.Detail)
		}
	}
}

func TestCapacityWarnings(t *testing.T) {
	const endpoints = `
target "api" {
  url              = "http://x"
  connections      = 10
  expected_latency = "1s"
}
endpoint "a" { weight = 3 }
endpoint "b" {
  weight   = 1
  max_rate = 1
}
`
	for _, tc := range []struct {
		name, load string
		warn       string
	}{
		{"open under capacity", "load {\n stage {\n duration = \"1s\"\n rate = 12\n }\n}", ""},
		// 3/4 of 14 req/s = 10.5 to "a", plus b capped at 1: 11.5 in flight for 1s > 10.
		{"open over capacity", "load {\n stage {\n duration = \"1s\"\n rate = 0\n to = 14\n }\n}", "Raise connections to at least 12"},
		{"closed under", "load {\n model = \"closed\"\n stage {\n duration = \"1s\"\n users = 10\n }\n}", ""},
		{"closed over", "load {\n model = \"closed\"\n stage {\n duration = \"1s\"\n users = 11\n }\n}", "peaks at 11 concurrent users"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fsys := fstest.MapFS{"p.hcl": {Data: []byte(endpoints + tc.load)}}
			_, _, diags := Load(Options{Path: "p.hcl", FS: fsys})
			if diags.HasErrors() {
				t.Fatal(describe(diags))
			}
			if tc.warn == "" {
				if len(diags) != 0 {
					t.Errorf("want no warning, got:\n%s", describe(diags))
				}
				return
			}
			if len(diags) != 1 || diags[0].Severity != hcl.DiagWarning || !strings.Contains(diags[0].Detail, tc.warn) {
				t.Errorf("want one warning containing %q, got:\n%s", tc.warn, describe(diags))
			}
		})
	}
}

// TestRowInEndpointWithOneDataBlock: endpoints may use row.* when the plan has
// exactly one data block, which then feeds them.
func TestRowInEndpointWithOneDataBlock(t *testing.T) {
	fsys := fstest.MapFS{
		"p.hcl": {Data: []byte(`
target "api" { url = "http://x" }
endpoint "e" { path = "/u/${row.id}" }
data "ids" { csv = "ids.csv" }
load {
  stage {
    duration = "1s"
    rate     = 1
  }
}`)},
		"ids.csv": {Data: []byte("id\n1\n2\n")},
	}
	p := mustLoad(t, Options{Path: "p.hcl", FS: fsys})
	e := p.Endpoints[0]
	if e.Data != "ids" || len(e.Path.Parts) != 2 || e.Path.Parts[1].Hole.Kind != HoleRow || e.Path.Parts[1].Hole.Name != "id" {
		t.Errorf("endpoint = %+v", e)
	}
}
