package plan

import (
	"reflect"
	"testing"

	"github.com/hashicorp/hcl/v2"
)

// TestJSONSyntaxEquivalent loads one plan written in both syntaxes and
// expects the same Plan, apart from source ranges and the sources read.
func TestJSONSyntaxEquivalent(t *testing.T) {
	native := mustLoad(t, Options{Path: "testdata/equiv/plan.hcl"})
	json := mustLoad(t, Options{Path: "testdata/equiv/plan.hcl.json"})
	if native.Name != "plan" || json.Name != "plan" {
		t.Errorf("names %q and %q, want plan", native.Name, json.Name)
	}
	native.Sources, json.Sources = nil, nil
	native.Path, json.Path = "", ""
	clearRanges(reflect.ValueOf(native))
	clearRanges(reflect.ValueOf(json))
	if !reflect.DeepEqual(native, json) {
		t.Errorf("plans differ:\nnative %#v\njson   %#v", native, json)
	}
	if len(native.Endpoints[0].Body.Parts) != 3 || !native.Endpoints[0].Body.Parts[1].Hole.JSONEscape {
		t.Errorf("body = %+v", native.Endpoints[0].Body)
	}
}

var rangeType = reflect.TypeOf(hcl.Range{})

// clearRanges zeroes every hcl.Range reachable from v.
func clearRanges(v reflect.Value) {
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if !v.IsNil() {
			clearRanges(v.Elem())
		}
	case reflect.Struct:
		if v.Type() == rangeType {
			v.Set(reflect.Zero(rangeType))
			return
		}
		for i := 0; i < v.NumField(); i++ {
			if v.Field(i).CanSet() {
				clearRanges(v.Field(i))
			}
		}
	case reflect.Slice:
		for i := 0; i < v.Len(); i++ {
			clearRanges(v.Index(i))
		}
	}
}
