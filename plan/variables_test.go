package plan

import (
	"strings"
	"testing"
	"testing/fstest"

	"github.com/zclconf/go-cty/cty"
)

const varsPlan = `
variable "s" {
  type    = string
  default = "default"
}
variable "n" {
  type    = number
  default = 1
}
variable "l" {
  type    = list(string)
  default = []
}
variable "b" {
  type    = bool
  default = false
}
target "api" { url = "http://x" }
endpoint "e" {}
load {
  stage {
    duration = "1s"
    rate     = 1
  }
}
`

func TestVariablePrecedence(t *testing.T) {
	fsys := fstest.MapFS{
		"p.hcl":          {Data: []byte(varsPlan)},
		"one.tfvars":     {Data: []byte("s = \"file-one\"\nn = 10\n")},
		"two.hcl.json":   {Data: []byte(`{"s": "file-two", "l": ["a", "b"]}`)},
		"unknown.tfvars": {Data: []byte("nope = 1\n")},
	}
	v := func(s string) VarArg { return VarArg{Value: s} }
	f := func(s string) VarArg { return VarArg{File: true, Value: s} }
	for _, tc := range []struct {
		name string
		env  []string
		vars []VarArg
		s    string
		n    int64
		l    int
		err  string
		warn string
	}{
		{name: "defaults", s: "default", n: 1},
		{name: "env over default", env: []string{"TRESSI_VAR_s=env", "TRESSI_VAR_n=2"}, s: "env", n: 2},
		{name: "env string is raw text", env: []string{"TRESSI_VAR_s=1 + 1"}, s: "1 + 1", n: 1},
		{name: "env number is an expression", env: []string{"TRESSI_VAR_n=3 * 2"}, s: "default", n: 6},
		{name: "-var over env", env: []string{"TRESSI_VAR_s=env"}, vars: []VarArg{v("s=cli")}, s: "cli", n: 1},
		{name: "later -var wins", vars: []VarArg{v("s=first"), v("s=second")}, s: "second", n: 1},
		{name: "-var-file after -var wins", vars: []VarArg{v("s=cli"), f("one.tfvars")}, s: "file-one", n: 10},
		{name: "-var after -var-file wins", vars: []VarArg{f("one.tfvars"), v("s=cli")}, s: "cli", n: 10},
		{name: "json var file", vars: []VarArg{f("one.tfvars"), f("two.hcl.json")}, s: "file-two", n: 10, l: 2},
		{name: "list from -var", vars: []VarArg{v(`l=["x"]`)}, s: "default", n: 1, l: 1},
		{name: "value with equals", vars: []VarArg{v("s=a=b")}, s: "a=b", n: 1},
		{name: "undeclared -var", vars: []VarArg{v("nope=1")}, err: "Value for undeclared variable"},
		{name: "missing equals", vars: []VarArg{v("s")}, err: "Invalid --var option"},
		{name: "bad number", vars: []VarArg{v("n=abc")}, err: "Invalid value for variable n: a number is required"},
		{name: "bad bool", vars: []VarArg{v("b=maybe")}, err: "Invalid value for variable b: a bool is required"},
		{name: "bad number expression", vars: []VarArg{v("n=1 +")}, err: "Invalid value for variable n: a number is required"},
		{name: "wrong type", vars: []VarArg{v(`n="x"`)}, err: "Invalid value for variable"},
		{name: "missing file", vars: []VarArg{f("gone.tfvars")}, err: "Cannot read variables file"},
		{name: "undeclared in file warns", vars: []VarArg{f("unknown.tfvars")}, s: "default", n: 1, warn: "Value for undeclared variable"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, _, diags := Load(Options{Path: "p.hcl", FS: fsys, Env: tc.env, Vars: tc.vars})
			if tc.err != "" {
				if !diags.HasErrors() || !strings.Contains(describe(diags), tc.err) {
					t.Fatalf("want error %q, got:\n%s", tc.err, describe(diags))
				}
				return
			}
			if diags.HasErrors() {
				t.Fatal(describe(diags))
			}
			if tc.warn != "" && !strings.Contains(describe(diags), tc.warn) {
				t.Errorf("want warning %q, got:\n%s", tc.warn, describe(diags))
			}
			got := map[string]cty.Value{}
			for _, v := range p.Variables {
				got[v.Name] = v.Value
			}
			n, _ := got["n"].AsBigFloat().Int64()
			if got["s"].AsString() != tc.s || n != tc.n || got["l"].LengthInt() != tc.l {
				t.Errorf("s=%#v n=%d len(l)=%d; want %q %d %d", got["s"].AsString(), n, got["l"].LengthInt(), tc.s, tc.n, tc.l)
			}
		})
	}
}

// TestVarErrorsHaveARange: a -var mistake points into a pseudo-file that
// the returned files can render.
func TestVarErrorsHaveARange(t *testing.T) {
	_, files, diags := Load(Options{Path: "p.hcl", FS: fstest.MapFS{"p.hcl": {Data: []byte(varsPlan)}}, Vars: []VarArg{{Value: "n=1 +"}}})
	if !diags.HasErrors() {
		t.Fatal("want an error")
	}
	r := diags[0].Subject
	if r == nil || r.Filename != "<value for var.n>" || files[r.Filename] == nil {
		t.Errorf("diagnostic %v should point into <value for var.n>", diags[0])
	}
}
