package exec

import (
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/tressi/tressi/compile"
	"github.com/tressi/tressi/results"
	"github.com/tressi/tressi/testserver"
)

// sessionStopPlan: two closed-model users for a second, each session's first
// request followed by a 5 s think, far past the user's stop plus the grace.
const sessionStopPlan = `
target "t" {
  url = "http://%s"
}
scenario "s" {
  step "first" {
    path  = "/"
    think = "5s"
  }
  step "second" {
    path = "/"
  }
  step "third" {
    path   = "/"
    repeat = 2
  }
}
load {
  model = "closed"
  stage {
    duration = "1s"
    users    = 2
  }
}
`

// A session's steps left at its user's stop plus the grace are not_sent,
// one row each, by the rule WebSocket sessions follow too
// (run.Halt.StopsSession): the session thinking past that instant is cut
// then, not at the think's end (the run ends within seconds, not after
// 5 s), and its user ends with it. An HTTP session once ended there
// without a row for what it had left.
func TestSessionCutAtUserStopRecordsTheRest(t *testing.T) {
	addr := startTarget(t, testserver.Options{})
	forEngines(t, func(t *testing.T, engine string) {
		s := compilePlan(t, fmt.Sprintf(sessionStopPlan, addr), nil)
		dir := filepath.Join(t.TempDir(), "run")
		begin := time.Now()
		out, err := Run(t.Context(), s, Options{OutDir: dir, Engine: engine, Grace: 200 * time.Millisecond})
		if err != nil {
			t.Fatal(err)
		}
		took := time.Since(begin)
		rows, _ := sessionRows(t, dir)
		if len(rows) != 2 {
			t.Fatalf("%s: %d sessions, want one per user (each thinks past its stop): %+v", engine, len(rows), rows)
		}
		for k, rs := range rows {
			if want := compile.SessionRows(&s.Entries[0]); int64(len(rs)) != want {
				t.Fatalf("%s: session %d has %d rows, its steps schedule %d: %+v", engine, k, len(rs), want, rs)
			}
			for _, r := range rs {
				want := results.NotSent
				if r.Name == "s.first" {
					want = results.None
				}
				if r.Error != want {
					t.Fatalf("%s: session %d: %s is %q, want %q: %+v", engine, k, r.Name, r.Error, want, rs)
				}
			}
		}
		if out.Overran || took > 4*time.Second {
			t.Fatalf("%s: the run took %v, overran %v: want the sessions cut at their users' stop plus the grace", engine, took, out.Overran)
		}
	})
}
