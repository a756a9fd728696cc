package plan

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// TestGRPCStreamStepsBothSyntaxes reads one bidirectional scenario written
// in HCL and in JSON: the same kinds, the stream named, the messages
// checked against the schema, the await and the finish's expect.
func TestGRPCStreamStepsBothSyntaxes(t *testing.T) {
	for _, path := range []string{"testdata/grpc/stream.hcl", "testdata/grpc/stream.hcl.json"} {
		p := mustLoad(t, Options{Path: path})
		steps := p.Scenarios[0].Steps
		var kinds []StepKind
		for _, st := range steps {
			kinds = append(kinds, st.Kind)
		}
		want := []StepKind{StepCallOpen, StepCallSend, StepCallSend, StepCallHalfClose, StepCallFinish}
		if !reflect.DeepEqual(kinds, want) {
			t.Fatalf("%s: kinds %v, want %v", path, kinds, want)
		}
		open, say, status := steps[0], steps[1], steps[4]
		if open.GRPC == nil || open.GRPC.Method != "tressibench.Echo/Bidi" || open.GRPC.Deadline.String() != "5s" || len(open.GRPC.Metadata) != 1 {
			t.Fatalf("%s: open %+v", path, open.GRPC)
		}
		if say.Call == nil || say.Call.Stream != "chat" || say.Repeat != 10 || say.Target != "echo" {
			t.Fatalf("%s: say %+v repeat %d target %q", path, say.Call, say.Repeat, say.Target)
		}
		if a := say.Call.Await; a == nil || len(a.JSON) != 1 || a.JSON[0].Path != "text" || a.Timeout.String() != "2s" {
			t.Fatalf("%s: await %+v", path, say.Call.Await)
		}
		if m := say.GRPC.Message; m == nil || len(m.Fields) != 2 || m.Static() {
			t.Fatalf("%s: message %+v", path, m)
		}
		if len(say.Captures) != 1 || say.Captures[0].Kind != CaptureJSON {
			t.Fatalf("%s: captures %+v", path, say.Captures)
		}
		if !reflect.DeepEqual(status.Expect, []int{0, 1}) {
			t.Fatalf("%s: finish expects %v, want [0 1]", path, status.Expect)
		}
		for _, st := range steps {
			if st.Kind.Rows() != (st.Kind != StepCallOpen && st.Kind != StepCallHalfClose) {
				t.Errorf("%s: step %s (%s) rows %v", path, st.Name, st.Kind, st.Kind.Rows())
			}
		}
	}
}

// A JSON plan's stream mistakes are located as an HCL plan's are.
func TestGRPCStreamDiagnosticsInJSON(t *testing.T) {
	dir := t.TempDir()
	proto, err := os.ReadFile("testdata/grpc/tressibench.proto")
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "tressibench.proto"), proto, 0o644)
	src := `{
  "target": {"echo": {"url": "grpc://127.0.0.1:50051", "proto": {"files": ["tressibench.proto"]}}},
  "scenario": {"s": {"step": [
    {"open": {"rpc": "tressibench.Echo/ServerStream", "message": {"count": 3}}},
    {"say": {"stream": "open", "message": {"text": "x"}}},
    {"bye": {"stream": "open", "cancel": false}}
  ]}},
  "load": {"stage": {"duration": "1s", "rate": 1}}
}
`
	path := filepath.Join(dir, "plan.hcl.json")
	os.WriteFile(path, []byte(src), 0o644)
	_, _, diags := Load(Options{Path: path})
	errs := errorsOf(diags)
	got := describe(errs)
	for _, w := range []string{"plan.hcl.json:5,", "Send on a server-streaming call", "plan.hcl.json:6,", "Invalid cancel"} {
		if !strings.Contains(got, w) {
			t.Errorf("diagnostics lack %q:\n%s", w, got)
		}
	}
	if len(errs) != 2 {
		t.Fatalf("%d errors, want 2:\n%s", len(errs), got)
	}
}
