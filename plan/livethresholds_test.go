package plan

import (
	"strings"
	"testing"
	"testing/fstest"
	"time"
)

// max and the live latency settings: defaults, values, and the mistakes
// a user makes with them.
func TestLiveLatencyThresholds(t *testing.T) {
	const plan = "target \"t\" { url = \"http://x\" }\nendpoint \"a\" {}\nload {\n stage {\n duration = \"1s\"\n rate = 1\n }\n}\n"
	for _, tc := range []struct {
		name, block string
		want        Thresholds // the fields compared below
		err         string
	}{
		{"end of run only", `p99 = "50ms"`, Thresholds{P99: 50 * time.Millisecond}, ""},
		{"max", `max = "2s"`, Thresholds{Max: 2 * time.Second}, ""},
		{"live with defaults", `p99 = "50ms"
live_window = "10s"`, Thresholds{P99: 50 * time.Millisecond, LiveWindow: 10 * time.Second, LiveDelay: 10 * time.Second, LiveMinCount: 100}, ""},
		{"live tuned", `max = "1s"
live_window = "5s"
live_delay = "0s"
live_min_count = 7`, Thresholds{Max: time.Second, LiveWindow: 5 * time.Second, LiveMinCount: 7}, ""},
		{"window without a limit", `error_rate = 0.1
live_window = "5s"`, Thresholds{}, "Live window without a latency limit"},
		{"delay without a window", `p99 = "1s"
live_delay = "5s"`, Thresholds{}, "Live setting without live_window"},
		{"zero window", `p99 = "1s"
live_window = "0s"`, Thresholds{}, "Invalid live_window"},
		{"zero count", `p99 = "1s"
live_window = "1s"
live_min_count = 0`, Thresholds{}, "Invalid live_min_count"},
		{"zero max", `max = "0s"`, Thresholds{}, "Invalid max"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fsys := fstest.MapFS{"p.hcl": {Data: []byte(plan + "thresholds {\n" + tc.block + "\n}\n")}}
			p, _, diags := Load(Options{Path: "p.hcl", FS: fsys})
			if tc.err != "" {
				if !diags.HasErrors() || !strings.Contains(describe(diags), tc.err) {
					t.Fatalf("want %q, got:\n%s", tc.err, describe(diags))
				}
				return
			}
			if diags.HasErrors() {
				t.Fatal(describe(diags))
			}
			th := p.Thresholds
			if th.P99 != tc.want.P99 || th.Max != tc.want.Max || th.LiveWindow != tc.want.LiveWindow ||
				th.LiveDelay != tc.want.LiveDelay || th.LiveMinCount != tc.want.LiveMinCount {
				t.Fatalf("thresholds %+v, want %+v", th, tc.want)
			}
		})
	}
}
