package exec

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/tressi/tressi/compile"
	"github.com/tressi/tressi/results"
	"github.com/tressi/tressi/testserver"
)

// A WebSocket target asked to speak HTTP/2 is refused before anything is
// sent, with what to do instead.
func TestWSRefusesWhatItCannotRun(t *testing.T) {
	for _, tc := range []struct{ name, src, want string }{
		{"h2", `
target "t" {
  url      = "https://127.0.0.1:1"
  protocol = "h2"
}
scenario "s" {
  step "connect" {
    connect = "/ws/echo"
  }
}
load {
  stage {
    duration = "1s"
    rate     = 1
  }
}
`, `WebSocket sessions upgrade over HTTP/1.1`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := compilePlan(t, tc.src, nil)
			_, err := Run(t.Context(), s, Options{OutDir: t.TempDir() + "/run"})
			var ie *InputError
			if !errors.As(err, &ie) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want an input error saying %q", err, tc.want)
			}
		})
	}
}

// mixedPlan: an HTTP endpoint, an HTTP scenario and a WebSocket scenario,
// all to one target at %s, under the load block %s.
const mixedPlan = `
target "api" {
  url = "http://%s"
}
endpoint "home" {
  path   = "/"
  weight = 2
}
scenario "browse" {
  weight = 1
  step "a" {
    path = "/a"
  }
  step "b" {
    path = "/b"
  }
}
scenario "chat" {
  weight = 1
  step "connect" {
    connect = "/ws/echo"
  }
  step "say" {
    send   = "hi ${seq}"
    repeat = 2
    await {
      regex = "^hi "
    }
  }
  step "close" {
    close = 1000
  }
}
%s
`

// An open-model plan of both kinds runs both on the one loop: WebSocket
// sessions, an HTTP endpoint and an HTTP scenario (all to one target),
// every slot one session with all its rows, once.
func TestMixedPlanRunsBothKinds(t *testing.T) {
	addr := startTarget(t, testserver.Options{})
	s := compilePlan(t, fmt.Sprintf(mixedPlan, addr, `load {
  stage {
    duration = "1s"
    rate     = 200
  }
}`), nil)
	rows, sum, dir := runWS(t, s)
	checkSessionRows(t, s, rows)
	checkMixedRows(t, s, rows, sum, dir)
}

// A closed-model plan may mix the kinds too: each user runs HTTP requests,
// HTTP scenarios and WebSocket sessions in turn, by weight, on its loop.
// Every session numbered 0..n-1 has all its rows, all ok, and
// websocket.json counts the WebSocket ones.
func TestMixedClosedPlanRunsBothKinds(t *testing.T) {
	addr := startTarget(t, testserver.Options{})
	s := compilePlan(t, fmt.Sprintf(mixedPlan, addr, `load {
  model = "closed"
  think = "5ms"
  stage {
    duration = "1s"
    users    = 4
  }
}`), nil)
	rows, sum, dir := runWS(t, s)
	checkClosedSessionRows(t, s, rows)
	checkMixedRows(t, s, rows, sum, dir)
}

// checkMixedRows: every row of the mixedPlan run in dir is ok, all three
// entries ran, websocket.json counts the WebSocket sessions, and meta.json
// names the loop.
func checkMixedRows(t *testing.T, s *compile.Schedule, rows map[uint64][]namedRow, sum *results.WebSocketSummary, dir string) {
	t.Helper()
	kinds := map[string]int{}
	for k, rs := range rows {
		for _, r := range rs {
			if r.Error != results.None {
				t.Fatalf("session %d: %s: %s", k, r.Name, r.Error)
			}
		}
		kinds[s.Entries[s.Pick(k)].Name]++
	}
	if kinds["home"] == 0 || kinds["browse"] == 0 || kinds["chat"] == 0 {
		t.Fatalf("sessions by entry %v: want all three kinds", kinds)
	}
	if sum.Sessions.Started != int64(kinds["chat"]) || sum.Sessions.Completed != int64(kinds["chat"]) {
		t.Fatalf("websocket.json sessions %+v, want %d started and completed", sum.Sessions, kinds["chat"])
	}
	m := readMeta(t, dir)
	if m.Engine != EngineLoop {
		t.Fatalf("meta.json engine %q", m.Engine)
	}
	// meta.json names what ran: the one target's connections spoke
	// HTTP/1.1 (endpoint, scenario) and WebSocket (one per session).
	if p := m.Protocols["api"]; p["http/1.1"] == 0 || p["websocket"] != int64(kinds["chat"]) {
		t.Fatalf("meta.json protocols %v, want http/1.1 connections and %d websocket", m.Protocols, kinds["chat"])
	}
}
