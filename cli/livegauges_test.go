package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"
	"time"

	"github.com/tressi/tressi/testserver"
)

// gaugePlan is three seconds of slow answers (300 ms each) on the built-in
// target at addr: requests stay in flight on open connections. With
// sessions, each is a scenario of three such calls 200 ms apart, so
// sessions stay active too; closed, 8 users send them back to back.
func gaugePlan(t *testing.T, addr string, sessions, closed bool) string {
	t.Helper()
	work := `endpoint "slow" {
  path = "/delay/300"
}`
	if sessions {
		work = `scenario "browse" {
  step "slow" {
    path   = "/delay/300"
    repeat = 3
    think  = "200ms"
  }
}`
	}
	load := `model = "open"
  seed  = 3
  stage {
    duration = "3s"
    rate     = 40
  }`
	if closed {
		load = `model = "closed"
  stage {
    duration = "3s"
    users    = 8
  }`
	}
	src := fmt.Sprintf(`
target "local" {
  url         = "http://%s"
  connections = 200
  timeout     = "5s"
}
%s
load {
  %s
}
`, addr, work, load)
	path := filepath.Join(t.TempDir(), "gauges.hcl")
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// /metrics says, while a run runs, how many connections are open, how many
// sessions are active and how many requests are in flight, on both
// engines; once the run ended nothing is in flight and no session active.
func TestLiveGauges(t *testing.T) {
	_, addr, err := testserver.StartLoopback(t)
	if err != nil {
		t.Fatal(err)
	}
	gauge := func(page, name string) float64 {
		m := regexp.MustCompile(`(?m)^` + name + `\{[^}]*\} (\S+)$`).FindStringSubmatch(page)
		if m == nil {
			t.Fatalf("/metrics has no %s:\n%s", name, page)
		}
		v, err := strconv.ParseFloat(m[1], 64)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	for _, tc := range []struct {
		engine           string
		sessions, closed bool // sessions: the plan's are scenarios; closed: users count as sessions
	}{{"loop", true, false}, {"loop", false, false}, {"loop", false, true}, {"fasthttp", true, false}, {"fasthttp", false, true}} {
		active := tc.sessions || tc.closed
		t.Run(fmt.Sprintf("%s/sessions=%v/closed=%v", tc.engine, tc.sessions, tc.closed), func(t *testing.T) {
			t.Parallel() // a few requests a second each, mostly waiting
			stderr, wait := applyLive(t, gaugePlan(t, addr, tc.sessions, tc.closed), "--engine", tc.engine, "-q", "--metrics=:0",
				"--dashboard-linger=6s", "-o", filepath.Join(t.TempDir(), "run"))
			var url string
			for deadline := time.Now().Add(30 * time.Second); url == "" && time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
				if m := metricsURL.FindStringSubmatch(stderr.String()); m != nil {
					url = m[1]
				}
			}
			if url == "" {
				t.Fatalf("no metrics URL:\n%s", stderr.String())
			}
			// 40 requests (or sessions) a second, each 300 ms (900 ms
			// and more): a dozen in flight at any instant.
			var conns, sessions, inFlight float64
			for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
				page := get(t, url)
				conns = max(conns, gauge(page, "tressi_open_connections"))
				sessions = max(sessions, gauge(page, "tressi_active_sessions"))
				inFlight = max(inFlight, gauge(page, "tressi_in_flight_requests"))
				if conns >= 2 && inFlight >= 2 && (sessions >= 2 || !active) {
					break
				}
			}
			if conns < 2 || inFlight < 2 || (active && sessions < 2) || (!active && sessions != 0) || (tc.closed && sessions > 8) {
				t.Fatalf("mid-run: at most %g connections open, %g sessions active, %g requests in flight", conns, sessions, inFlight)
			}
			// The end: every row recorded (40 × 3 slots, of one request or
			// of a session's three; as many as the users got answered in
			// the closed model), and nothing left in flight or active.
			want := 120
			if tc.sessions {
				want = 360
			}
			recorded := func(page string) (n int) {
				for _, m := range requestsLine.FindAllStringSubmatch(page, -1) {
					v, _ := strconv.Atoi(m[2])
					n += v
				}
				return n
			}
			var page string
			for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
				if page = get(t, url); (recorded(page) == want || tc.closed) && regexp.MustCompile(`tressi_requests_total\{`).MatchString(page) &&
					gauge(page, "tressi_in_flight_requests") == 0 && gauge(page, "tressi_active_sessions") == 0 {
					break
				}
			}
			if n, f, s := recorded(page), gauge(page, "tressi_in_flight_requests"), gauge(page, "tressi_active_sessions"); (n != want && !tc.closed) || f != 0 || s != 0 {
				t.Fatalf("at the end: %d of %d rows, %g requests in flight, %g sessions active", n, want, f, s)
			}
			if tc.sessions && !regexp.MustCompile(`tressi_requests_total\{[^}]*endpoint="browse\.slow"`).MatchString(page) {
				t.Fatalf("a scenario step's series is not named scenario.step:\n%s", page)
			}
			if code, _ := wait(); code != 0 {
				t.Fatalf("exit %d:\n%s", code, stderr.String())
			}
		})
	}
}
