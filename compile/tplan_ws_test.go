package compile

import (
	"reflect"
	"testing"

	"github.com/tressi/tressi/plan"
)

// A WebSocket plan's .tplan keeps its sessions' steps (connect, send,
// await, hold, close, for_each) and think ranges: they used to be left out
// of the header, so the schedule read back had HTTP steps only, its hash no
// longer matched, and `tressi apply plan.tplan` refused every WebSocket run.
func TestTPlanKeepsWebSocketSteps(t *testing.T) {
	for _, path := range []string{"../examples/websocket/hold.hcl", "../examples/tinode/tinode.hcl", "../examples/wss.hcl"} {
		t.Run(path, func(t *testing.T) {
			p, _, diags := plan.Load(plan.Options{Path: path})
			if diags.HasErrors() {
				t.Fatal(diags)
			}
			s, tp, _ := roundTrip(t, p)
			got := tp.Schedule
			ws := 0
			for _, e := range s.Entries {
				for _, st := range e.Steps {
					if st.WebSocket != nil {
						ws++
					}
				}
			}
			if ws == 0 {
				t.Fatal("the plan has no WebSocket step to keep")
			}
			if got.Hash != s.Hash || !reflect.DeepEqual(got.Entries, s.Entries) {
				t.Fatalf("entries differ after the round trip:\n%+v\n%+v", got.Entries, s.Entries)
			}
			// A plan with sensitive values writes them redacted, so only the
			// others' schedules hash again to the header's (ReadTPlan checks it).
			if _, h := scan(got); len(tp.Sensitive) == 0 && h != s.Hash {
				t.Fatalf("recomputed hash %s, want %s", h, s.Hash)
			}
		})
	}
}
