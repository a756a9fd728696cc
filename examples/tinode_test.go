package examples_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/tressi/tressi/compile"
	"github.com/tressi/tressi/exec"
	"github.com/tressi/tressi/plan"
	"github.com/tressi/tressi/results"
	"github.com/tressi/tressi/testserver"
)

// Tinode's three load tests run against the built-in target, which speaks
// Tinode's wire protocol: every session has exactly the rows its program
// schedules, every answer is a 2xx ctrl (101 for the upgrade, the close
// code for the close), the pubs to the channel every user reads are skipped
// (Loadtest), and a published message reaches other sessions. The same
// example against a real Tinode server: TestTinodeRealServer.
func TestTinodeExample(t *testing.T) {
	for _, tc := range []struct {
		test  string
		vars  []string
		fanut bool
	}{
		{"Loadtest", []string{"num_sessions=12", "ramp=1", "publish_count=3", "publish_interval=20", "pause=20ms", "pause_scale=0"}, true},
		{"MeLoadtest", []string{"num_sessions=8", "ramp=1", "pause=20ms", "hold=0.2"}, false},
		{"SingleTopicLoadtest", []string{"num_sessions=10", "ramp=1", "publish_count=3", "publish_interval=50", "pause=20ms", "pause_scale=0"}, true},
	} {
		t.Run(tc.test, func(t *testing.T) {
			_, addr, err := testserver.StartLoopback(t)
			if err != nil {
				t.Fatal(err)
			}
			vars := []plan.VarArg{{Value: "base_url=http://" + addr}, {Value: "test=" + tc.test}}
			for _, v := range tc.vars {
				vars = append(vars, plan.VarArg{Value: v})
			}
			p, _, diags := plan.Load(plan.Options{Path: "tinode", Vars: vars})
			if diags.HasErrors() {
				t.Fatal(diags)
			}
			s, diags := compile.Compile(p)
			if diags.HasErrors() {
				t.Fatal(diags)
			}
			dir := filepath.Join(t.TempDir(), "run")
			if _, err := exec.Run(t.Context(), s, exec.Options{OutDir: dir}); err != nil {
				t.Fatal(err)
			}
			r, err := results.Open(filepath.Join(dir, exec.ResultsFile))
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			perSlot := map[uint64]int64{}
			skipped := 0
			for {
				b, ok := r.Next()
				if !ok {
					break
				}
				for i := 0; i < b.Len; i++ {
					name, errWord, status := b.EndpointNames[b.Endpoint[i]], b.ErrorNames[b.Error[i]], b.Status[i]
					perSlot[b.Slot[i]]++
					switch {
					case errWord == "no_item": // a subscription the account does not have
					case errWord == "skipped" && strings.HasSuffix(name, ".pub-topic"): // to the channel
						skipped++
					case errWord != "":
						t.Fatalf("slot %d %s: %s", b.Slot[i], name, errWord)
					case strings.HasSuffix(name, ".connect") && status != 101,
						strings.HasSuffix(name, ".close") && status != 1000,
						!strings.HasSuffix(name, ".connect") && !strings.HasSuffix(name, ".close") && (status < 200 || status > 299):
						t.Fatalf("slot %d %s: status %d", b.Slot[i], name, status)
					}
				}
			}
			if tc.test == "Loadtest" && skipped != 12*3 {
				t.Fatalf("%d pubs skipped, want 12 sessions × 3 to the channel", skipped)
			}
			if int64(len(perSlot)) != s.Count {
				t.Fatalf("%d sessions have rows, %d scheduled", len(perSlot), s.Count)
			}
			for k, n := range perSlot {
				if want := compile.SessionRows(&s.Entries[s.Pick(k)]); n != want {
					t.Fatalf("slot %d: %d rows, its session schedules %d", k, n, want)
				}
			}
			sum, err := results.ReadWebSocketSummary(dir)
			if err != nil || sum == nil {
				t.Fatalf("websocket.json: %v", err)
			}
			if sum.Sessions.Completed != s.Count || (tc.fanut && sum.Fanout.Delivered == 0) {
				t.Fatalf("summary %+v", sum)
			}
		})
	}
}
