package plan

import (
	"reflect"
	"testing"
	"testing/fstest"
	"time"

	"github.com/tressi/tressi/testserver/grpctarget"
)

// TestGRPCPlanBothSyntaxes loads one gRPC endpoint written in HCL and in
// JSON and checks they read alike and as the schema says.
func TestGRPCPlanBothSyntaxes(t *testing.T) {
	native := mustLoad(t, Options{Path: "testdata/grpc/echo.hcl"})
	json := mustLoad(t, Options{Path: "testdata/grpc/echo.hcl.json"})
	for _, p := range []*Plan{native, json} {
		if len(p.Descriptors["echo"]) == 0 {
			t.Fatal("the target's descriptors are not in Plan.Descriptors")
		}
		if _, ok := p.Sources["testdata/grpc/tressibench.proto"]; !ok {
			t.Fatalf("the .proto is not among the sources: %v", mapKeys(p.Sources))
		}
	}
	if string(native.Descriptors["echo"]) != string(json.Descriptors["echo"]) {
		t.Fatal("the two syntaxes' descriptors differ")
	}
	e := native.Endpoints[0]
	g := e.GRPC
	if g == nil || g.Method != "tressibench.Echo/Unary" || e.Path.Literal() != "/tressibench.Echo/Unary" || e.Method != "POST" {
		t.Fatalf("call %+v path %q method %s", g, e.Path.Literal(), e.Method)
	}
	if g.Deadline != time.Second || g.Compression != "gzip" || !reflect.DeepEqual(e.Expect, []int{0, 5}) {
		t.Fatalf("deadline %v compression %q expect %v", g.Deadline, g.Compression, e.Expect)
	}
	if len(g.Metadata) != 2 || g.Metadata[0].Name != "trace-bin" || g.Metadata[0].Value.Literal() != "AQI" || g.Metadata[1].Name != "x-tenant" {
		t.Fatalf("metadata %+v", g.Metadata)
	}
	byName := map[string]FieldValue{}
	for _, f := range g.Message.Fields {
		byName[string(f.Desc.Name())] = f
	}
	if len(byName) != 11 || g.Message.Static() {
		t.Fatalf("%d fields, static %v", len(byName), g.Message.Static())
	}
	if k := byName["kind"].Scalar.Literal(); k != "2" {
		t.Errorf("kind = %q, want the enum's number 2", k)
	}
	if id := byName["id"].Scalar; len(id.Parts) != 1 || id.Parts[0].Hole == nil || id.Parts[0].Hole.Kind != HoleSeq {
		t.Errorf("id = %+v, want the seq hole", id)
	}
	if l := byName["labels"].List; len(l) != 2 || l[0].Message == nil || len(l[0].Message.Fields) != 2 {
		t.Errorf("labels = %+v, want two entries of key and value", l)
	}
	if d := byName["delta"].Scalar.Literal(); d != "-5" {
		t.Errorf("delta = %q", d)
	}

	clearGRPC := func(p *Plan) {
		p.Sources, p.Path, p.Name = nil, "", ""
		for _, e := range p.Endpoints {
			e.GRPC.Desc, e.GRPC.Message = nil, nil
		}
		for _, t := range p.Targets {
			t.GRPC.Schema = nil
		}
		clearRanges(reflect.ValueOf(p))
	}
	nm, jm := native.Endpoints[0].GRPC.Message, json.Endpoints[0].GRPC.Message
	if len(nm.Fields) != len(jm.Fields) {
		t.Fatalf("messages differ: %d and %d fields", len(nm.Fields), len(jm.Fields))
	}
	for i := range nm.Fields {
		a, b := nm.Fields[i], jm.Fields[i]
		if a.Desc.FullName() != b.Desc.FullName() || !reflect.DeepEqual(a.Scalar, b.Scalar) || len(a.List) != len(b.List) {
			t.Errorf("field %d differs: %+v and %+v", i, nm.Fields[i], jm.Fields[i])
		}
	}
	clearGRPC(native)
	clearGRPC(json)
	if !reflect.DeepEqual(native.Endpoints, json.Endpoints) || !reflect.DeepEqual(native.Targets, json.Targets) {
		t.Fatalf("plans differ:\nnative %#v\njson   %#v", native.Endpoints[0], json.Endpoints[0])
	}
}

// TestGRPCDescriptorsReplace: a replay hands the descriptors back and
// needs neither the .proto files nor the server.
func TestGRPCDescriptorsReplace(t *testing.T) {
	first := mustLoad(t, Options{Path: "testdata/grpc/echo.hcl"})
	src := `target "echo" {
  url = "grpc://127.0.0.1:1"
  proto { reflection = true }
}
endpoint "e" {
  rpc = "tressibench.Echo/Unary"
}
load {
  stage {
    duration = "1s"
    rate     = 1
  }
}
`
	p := mustLoad(t, Options{Path: "p.hcl", FS: fstest.MapFS{"p.hcl": {Data: []byte(src)}}, Descriptors: first.Descriptors})
	if m := p.Endpoints[0].GRPC.Desc; m == nil || m.Input().Fields().ByName("labels") == nil {
		t.Fatal("the method did not come from the descriptors handed in")
	}
}

// TestGRPCTestdataProtoIsTheTargets keeps the plan tests' copy of the
// built-in target's .proto equal to the one it serves.
func TestGRPCTestdataProtoIsTheTargets(t *testing.T) {
	p := mustLoad(t, Options{Path: "testdata/grpc/echo.hcl"})
	if string(p.Sources["testdata/grpc/tressibench.proto"]) != string(grpctarget.Proto) {
		t.Fatal("plan/testdata/grpc/tressibench.proto differs from testserver/grpctarget's; copy it over")
	}
}
