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

// Sessions longer than their schedule stop at its end plus the grace: a
// 1 s plan whose sessions would take minutes ends within a few seconds,
// and every request left is still one row, not_sent or interrupted.
func TestNothingRunsPastScheduleEndPlusGrace(t *testing.T) {
	srv, addr, err := testserver.StartLoopback(t)
	if err != nil {
		t.Fatal(err)
	}
	const sessions, repeat = 4, 50_000
	s := compilePlan(t, fmt.Sprintf(`
target "api" {
  url     = "http://%s"
  timeout = "1s"
}
scenario "long" {
  step "tick" {
    path   = "/"
    repeat = %d
  }
}
load {
  stage {
    duration = "1s"
    rate     = %d
  }
}
`, addr, repeat, sessions), nil)
	dir := filepath.Join(t.TempDir(), "run")
	grace := 500 * time.Millisecond
	begin := time.Now()
	finished := make(chan struct{})
	var out *Outcome
	go func() {
		defer close(finished)
		out, err = Run(t.Context(), s, Options{OutDir: dir, Grace: grace})
	}()
	select {
	case <-finished:
	case <-time.After(60 * time.Second):
		t.Fatal("a 1 s schedule still ran after 60 s")
	}
	if err != nil {
		t.Fatal(err)
	}
	// The run itself stops at the end plus the timeout (longer than the
	// grace); writing the 200k rows left takes seconds more under -race on
	// a busy machine, so the wall clock only rules out the minutes the
	// sessions would take, and the rows show when sending stopped.
	if d := time.Since(begin); d > 30*time.Second {
		t.Errorf("the run took %v; the schedule is %v, the timeout 1 s", d, s.Duration)
	}
	if !out.Overran {
		t.Error("the outcome does not say the sessions overran the schedule")
	}
	sent := srv.Stats().Requests
	time.Sleep(200 * time.Millisecond)
	if after := srv.Stats().Requests; after != sent {
		t.Errorf("requests still went out after the run: %d then %d", sent, after)
	}
	bySlot, _ := sessionRows(t, dir)
	for k := range uint64(sessions) {
		rows := bySlot[k]
		cut := 0
		for _, r := range rows {
			if r.Error == results.NotSent || r.Error == results.Interrupted {
				cut++
			}
		}
		if len(rows) != repeat || cut == 0 {
			t.Errorf("slot %d: %d rows (%d cut off), want %d with the rest cut off", k, len(rows), cut, repeat)
		}
		// Nothing goes out after the end plus the grace, or the longest
		// timeout when that is longer (1 s here); a preempted stamp may
		// land a little after the check that let it go.
		bound := s.Duration + max(grace, time.Second)
		stopAt := int64(bound + 100*time.Millisecond)
		for _, r := range rows {
			if r.Error != results.NotSent && r.Sent > stopAt {
				t.Errorf("slot %d: %s sent at %v, after the end plus the timeout (%v)", k, r.Error, time.Duration(r.Sent), bound)
				break
			}
		}
	}
}

// What a plan declares is not overrunning: sessions that hold or think
// past the schedule's end plus the grace, as their steps say, run to their
// end (a 20 s ramp of sessions that each hold 60 s is the README's
// 18,000-session figure). The bound adds the longest timeout (2 s here)
// for the sessions' own requests, which a busy machine makes slow.
func TestDeclaredPausesAreNotCutOff(t *testing.T) {
	for _, tc := range []struct{ name, plan string }{
		{"websocket hold", `
target "t" {
  url     = "ws://%s"
  timeout = "2s"
}
scenario "s" {
  step "connect" {
    connect = "/ws/echo"
  }
  step "idle" {
    hold = "2s"
  }
  step "hello" {
    send = "hello ${seq}"
    await {
      regex = "^hello "
    }
  }
  step "close" {
    close = 1000
  }
}
load {
  stage {
    duration = "500ms"
    rate     = 4
  }
}
`},
		{"http think", `
target "t" {
  url     = "http://%s"
  timeout = "2s"
}
scenario "s" {
  step "tick" {
    path   = "/"
    repeat = 3
    think  = "700ms"
  }
}
load {
  stage {
    duration = "500ms"
    rate     = 4
  }
}
`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			addr := startTarget(t, testserver.Options{})
			s := compilePlan(t, fmt.Sprintf(tc.plan, addr), nil)
			dir := filepath.Join(t.TempDir(), "run")
			out, err := Run(t.Context(), s, Options{OutDir: dir, Grace: 200 * time.Millisecond})
			if err != nil {
				t.Fatal(err)
			}
			if out.Overran || out.OK != out.Requests || out.Requests != s.Count*int64(compile.SessionRows(&s.Entries[0])) {
				t.Fatalf("outcome %+v: want every request of every session ok, nothing overran", out)
			}
		})
	}
}
