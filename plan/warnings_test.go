package plan

import (
	"fmt"
	"strings"
	"testing"
	"testing/fstest"
)

// TestCapacityWarnings: the queueing warning appears only when the plan
// cannot work as written, and says what to change.
func TestQueueWarningOnlyWhenThePlanCannotWork(t *testing.T) {
	open := func(target string, rate int) string {
		return fmt.Sprintf("target \"api\" {\n  url = \"http://127.0.0.1:1\"\n%s}\nendpoint \"e\" {}\nload {\n  stage {\n    duration = \"1s\"\n    rate     = %d\n  }\n}\n", target, rate)
	}
	closed := func(conns, users int) string {
		return fmt.Sprintf("target \"api\" {\n  url = \"http://127.0.0.1:1\"\n  connections = %d\n}\nendpoint \"e\" {}\nload {\n  model = \"closed\"\n  stage {\n    duration = \"1s\"\n    users    = %d\n  }\n}\n", conns, users)
	}
	for _, tc := range []struct {
		name, src string
		want      []string // substrings of the one warning; none when empty
	}{
		{"no latency stated, however high the rate", open("  connections = 2\n  timeout = \"30s\"\n", 5000), nil},
		{"enough connections for the stated latency", open("  connections = 64\n  expected_latency = \"10ms\"\n", 5000), nil},
		{"exactly enough", open("  connections = 50\n  expected_latency = \"10ms\"\n", 5000), nil},
		{"too few for the stated latency", open("  connections = 2\n  expected_latency = \"50ms\"\n", 100),
			[]string{"Requests will queue for connections", "about 5 are in flight", "connections = 2", "Raise connections to at least 5", "lower the peak rate to 40 per second"}},
		{"closed: users within connections", closed(10, 10), nil},
		{"closed: more users than connections", closed(4, 10),
			[]string{"Users may queue for connections", "10 concurrent users", "at least 10"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, _, diags := Load(Options{Path: "p.hcl", FS: fstest.MapFS{"p.hcl": {Data: []byte(tc.src)}}})
			if p == nil {
				t.Fatal(describe(diags))
			}
			if len(tc.want) == 0 {
				if len(diags) != 0 {
					t.Errorf("want no warning, got:\n%s", describe(diags))
				}
				return
			}
			if len(diags) != 1 {
				t.Fatalf("want one warning, got:\n%s", describe(diags))
			}
			for _, w := range tc.want {
				if got := describe(diags); !strings.Contains(got, w) {
					t.Errorf("warning lacks %q:\n%s", w, got)
				}
			}
		})
	}
}

func TestExpectedLatencyMustBePositive(t *testing.T) {
	src := "target \"api\" {\n  url = \"http://127.0.0.1:1\"\n  expected_latency = \"0s\"\n}\nendpoint \"e\" {}\nload {\n  stage {\n    duration = \"1s\"\n    rate     = 1\n  }\n}\n"
	_, _, diags := Load(Options{Path: "p.hcl", FS: fstest.MapFS{"p.hcl": {Data: []byte(src)}}})
	if !diags.HasErrors() || !strings.Contains(describe(diags), "expected_latency must be greater than zero") {
		t.Errorf("want an error, got:\n%s", describe(diags))
	}
}
