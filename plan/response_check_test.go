package plan

import (
	"reflect"
	"testing"
)

// Check blocks read alike from HCL and JSON, and decode to what they say.
func TestChecksBothSyntaxes(t *testing.T) {
	native := mustLoad(t, Options{Path: "testdata/equiv_checks/checks.hcl"})
	json := mustLoad(t, Options{Path: "testdata/equiv_checks/checks.hcl.json"})
	for _, p := range []*Plan{native, json} {
		p.Sources, p.Path, p.Name = nil, "", ""
		clearRanges(reflect.ValueOf(p))
	}
	if !reflect.DeepEqual(native, json) {
		t.Fatalf("plans differ:\nnative %#v\njson   %#v", native.Endpoints[0].Checks, json.Endpoints[0].Checks)
	}
	want := []Check{
		{Name: "status_ok", Subject: CheckJSON, Path: "status", Op: CheckEquals, Value: "ok", MinSize: -1, MaxSize: -1},
		{Name: "count", Subject: CheckJSON, Path: "items[0].count", Op: CheckEquals, Value: "42", MinSize: -1, MaxSize: -1},
		{Name: "id_digits", Subject: CheckJSON, Path: "items[0].id", Op: CheckRegex, Value: "^[0-9]+$", MinSize: -1, MaxSize: -1},
		{Name: "has_token", Subject: CheckJSON, Path: "data.token", Op: CheckExists, Exists: true, MinSize: -1, MaxSize: -1},
		{Name: "no_error", Subject: CheckJSON, Path: "error", Op: CheckExists, MinSize: -1, MaxSize: -1},
		{Name: "greets", Op: CheckContains, Value: "hello", MinSize: -1, MaxSize: -1},
		{Name: "title", Op: CheckRegex, Value: "<title>[^<]+</title>", MinSize: -1, MaxSize: -1},
		{Name: "json_type", Subject: CheckHeader, Path: "Content-Type", Op: CheckContains, Value: "application/json", MinSize: -1, MaxSize: -1},
		{Name: "size", Op: CheckSize, MinSize: 100, MaxSize: 2048},
	}
	got := native.Endpoints[0].Checks
	if len(got) != len(want) {
		t.Fatalf("%d checks, want %d: %+v", len(got), len(want), got)
	}
	for i := range want {
		if !reflect.DeepEqual(got[i], want[i]) {
			t.Errorf("check %d:\n got %+v\nwant %+v", i, got[i], want[i])
		}
	}
	if c := native.Scenarios[0].Steps[0].Checks; len(c) != 1 || c[0].Name != "welcomed" {
		t.Errorf("step checks %+v", c)
	}
}
