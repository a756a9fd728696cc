package plan

import (
	"reflect"
	"testing"
	"time"
)

// A WebSocket scenario reads the same in both syntaxes, and every step
// kind lands where the compiler expects it.
func TestWebSocketPlanBothSyntaxes(t *testing.T) {
	native := mustLoad(t, Options{Path: "testdata/equiv_ws/ws.hcl"})
	json := mustLoad(t, Options{Path: "testdata/equiv_ws/ws.hcl.json"})
	native.Sources, json.Sources = nil, nil
	native.Path, json.Path = "", ""
	native.Name, json.Name = "", ""
	clearRanges(reflect.ValueOf(native))
	clearRanges(reflect.ValueOf(json))
	if !reflect.DeepEqual(native, json) {
		t.Fatalf("plans differ:\nnative %#v\njson   %#v", native.Scenarios[0].Steps, json.Scenarios[0].Steps)
	}
	if got := native.Targets[0].SourceAddresses; !reflect.DeepEqual(got, []string{"127.0.0.2", "127.0.0.3"}) {
		t.Errorf("source_addresses %v", got)
	}
	steps := native.Scenarios[0].Steps
	auth := steps[0] // an HTTP step before the connect
	if auth.Kind != StepHTTP || auth.Method != "POST" || len(auth.Captures) != 1 || auth.Captures[0].Name != "token" {
		t.Fatalf("auth step %+v", auth)
	}
	if h := steps[1].Headers; len(h) != 1 || h[0].Name != "Authorization" {
		t.Errorf("connect headers %+v", h)
	}
	steps = steps[1:]
	kinds := []StepKind{StepConnect, StepSend, StepSend, StepForEach, StepHold, StepThink, StepClose}
	for i, k := range kinds {
		if steps[i].Kind != k {
			t.Fatalf("step %q is %v, want %v", steps[i].Name, steps[i].Kind, k)
		}
	}
	login := steps[1].WebSocket
	if login.Await == nil || len(login.Await.JSON) != 2 || login.Await.Timeout != 3*time.Second || login.Await.Status != "ctrl.code" || !login.Wait || !login.ExitIfFailed {
		t.Errorf("login await %+v", login.Await)
	}
	pub := steps[2]
	if !pub.WebSocket.Marked || !pub.WebSocket.Binary || pub.WebSocket.Wait || pub.ThinkMax != 50*time.Millisecond || pub.Repeat != 3 {
		t.Errorf("pub %+v %+v", pub, pub.WebSocket)
	}
	fe := steps[3].WebSocket
	if fe.Items != "subs" || fe.Max != 4 || len(fe.Steps) != 1 || fe.Steps[0].Kind != StepSend || fe.Steps[0].WebSocket.SkipIf != `"topic":"chn` {
		t.Errorf("for_each %+v", fe)
	}
	if steps[4].WebSocket.Hold != time.Second || steps[6].WebSocket.CloseCode != 1001 {
		t.Errorf("hold %v close %d", steps[4].WebSocket.Hold, steps[6].WebSocket.CloseCode)
	}
}
