package exec

import (
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/tressi/tressi/results"
)

const closedWSPlan = `
target "t" {
  url         = "ws://%s"
  connections = %d
}
scenario "s" {
  step "connect" {
    connect = "/echo"
  }
  step "msg" {
    send   = "m-${seq}"
    repeat = 3
    think  = "20ms"
    await {
      regex = "^m-"
    }
  }
  step "idle" {
    hold = "%s"
  }
  step "close" {
    close = 1000
  }
}
load {
  model = "closed"
  think = "50ms"
  stage {
    duration = "1s"
    users    = 4
  }
}
`

// The closed model: 4 users, each running sessions one after another
// (think 50 ms between them) for a second. Every session has all its
// rows and all are ok; the server never holds more than the 4 users'
// sessions at once; each user ran several.
func TestWSClosedModelUsers(t *testing.T) {
	var conns, most atomic.Int64
	addr := startCoderEchoLive(t, nil, &conns, &most)
	s := compilePlan(t, fmt.Sprintf(closedWSPlan, addr, 64, "50ms"), nil)
	rows, sum, _ := runWS(t, s)
	checkClosedSessionRows(t, s, rows)
	for k, rs := range rows {
		for _, r := range rs {
			if r.Error != results.None {
				t.Fatalf("slot %d: %s: %s", k, r.Name, r.Error)
			}
		}
	}
	// Each session takes at least 3 × 20 ms + 50 ms, plus the think
	// between sessions: a user runs at most ~6 in a second; 4 users at
	// least one each, and on a loaded machine surely more than 4 in all.
	if n := int64(len(rows)); n < 5 || n > 4*8 || sum.Sessions.Completed != n || conns.Load() != n {
		t.Fatalf("%d sessions, summary %+v, server upgrades %d", n, sum.Sessions, conns.Load())
	}
	if m := most.Load(); m > 4 {
		t.Fatalf("the server held %d sessions at once; 4 users hold at most 4", m)
	}
}

// A user's session that outlives the user's stop and the grace sends
// nothing more: its close is not_sent, and no row is lost. connections
// below the users makes them wait for one another.
func TestWSClosedModelCutsAtUserStop(t *testing.T) {
	var conns, most atomic.Int64
	addr := startCoderEchoLive(t, nil, &conns, &most)
	s := compilePlan(t, fmt.Sprintf(closedWSPlan, addr, 2, "60s"), nil)
	dir := t.TempDir() + "/run"
	if _, err := Run(t.Context(), s, Options{OutDir: dir, Grace: 200 * 1e6}); err != nil {
		t.Fatal(err)
	}
	rows, _ := sessionRows(t, dir)
	checkClosedSessionRows(t, s, rows)
	kinds := map[string]int{}
	for _, rs := range rows {
		for _, r := range rs {
			kinds[r.Name+":"+r.Error.String()]++
		}
	}
	if kinds["s.close:not_sent"] == 0 || kinds["s.connect:"] == 0 || most.Load() > 2 {
		t.Fatalf("rows %v, %d connections at once (want at most 2)", kinds, most.Load())
	}
}
