package plan

import (
	"fmt"
	"math"
	"strings"
	"testing"
	"testing/fstest"
	"time"
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
	// ws: sessions holding 10 s and then sending 5 frames 1 s apart (15 s
	// connected at least), at rate per second for duration.
	ws := func(conns, rate int, duration string) string {
		return fmt.Sprintf("target \"t\" {\n  url = \"ws://127.0.0.1:1\"\n  connections = %d\n}\nscenario \"s\" {\n  step \"connect\" {\n    connect = \"/ws\"\n  }\n  step \"idle\" {\n    hold = \"10s\"\n  }\n  step \"say\" {\n    send   = \"x\"\n    repeat = 5\n    think  = \"1s\"\n  }\n}\nload {\n  stage {\n    duration = %q\n    rate     = %d\n  }\n}\n", conns, duration, rate)
	}
	// sessions: HTTP sessions of 3 requests with 1 s of think after each
	// (3 s each), on their own connections (mode), at rate per second.
	sessions := func(conns, rate int, mode string) string {
		return fmt.Sprintf("target \"t\" {\n  url = \"http://127.0.0.1:1\"\n  connections = %d\n  connection = %q\n}\nscenario \"s\" {\n  think = \"1s\"\n  step \"a\" {}\n  step \"b\" {\n    repeat = 2\n  }\n}\nload {\n  stage {\n    duration = \"30s\"\n    rate     = %d\n  }\n}\n", conns, mode, rate)
	}
	for _, tc := range []struct {
		name, src string
		want      []string // substrings of the one warning; none when empty
	}{
		{"sessions: enough connections for the sessions held", sessions(150, 50, "session"), nil},
		{"sessions: pooled connections are shared, not held", sessions(100, 50, "pool"), nil},
		{"sessions: too few connections for the sessions held", sessions(100, 50, "session"),
			[]string{"Sessions will queue for connections", "about 50 sessions per second", "at least 3s", "at least 150 hold one", "connections = 100", "Raise connections to at least 150"}},
		{"no latency stated, however high the rate", open("  connections = 2\n  timeout = \"30s\"\n", 5000), nil},
		{"enough connections for the stated latency", open("  connections = 64\n  expected_latency = \"10ms\"\n", 5000), nil},
		{"exactly enough", open("  connections = 50\n  expected_latency = \"10ms\"\n", 5000), nil},
		{"too few for the stated latency", open("  connections = 2\n  expected_latency = \"50ms\"\n", 100),
			[]string{"Requests will queue for connections", "about 5 are in flight", "connections = 2", "Raise connections to at least 5", "lower the peak rate to 40 per second"}},
		{"websocket: enough connections for the sessions held", ws(150, 10, "30s"), nil},
		{"websocket: the stage ends before the sessions do", ws(64, 10, "5s"), nil},
		{"websocket: too few connections for the sessions held", ws(64, 10, "30s"),
			[]string{"WebSocket sessions will queue for connections", "about 10 WebSocket sessions per second", "at least 15s", "at least 150 are connected", "connections = 64", "Raise connections to at least 150"}},
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

// The most sessions started within a span: a constant rate gives rate × the
// span (or the whole stage, when shorter); a ramp's busiest span is its
// end; a gap between two stages is never counted as arrivals.
func TestMostStartedWithin(t *testing.T) {
	s := func(d time.Duration, from, to float64) Stage { return Stage{Duration: d, From: from, To: to} }
	for _, tc := range []struct {
		name   string
		stages []Stage
		span   time.Duration
		want   float64
	}{
		{"constant", []Stage{s(30*time.Second, 10, 10)}, 15 * time.Second, 150},
		{"span longer than the stage", []Stage{s(5*time.Second, 10, 10)}, 15 * time.Second, 50},
		{"ramp up: the last span", []Stage{s(10*time.Second, 0, 100)}, 2 * time.Second, 180},
		{"pause between bursts", []Stage{s(time.Second, 100, 100), s(10*time.Second, 0, 0), s(time.Second, 100, 100)}, 5 * time.Second, 100},
		{"no pause", []Stage{s(time.Second, 100, 100)}, 0, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := mostStartedWithin(tc.stages, tc.span); math.Abs(got-tc.want) > 1e-6*tc.want+1e-9 {
				t.Fatalf("got %v, want %v", got, tc.want)
			}
		})
	}
}
