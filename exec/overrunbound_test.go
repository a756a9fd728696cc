package exec

import (
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/tressi/tressi/results"
	"github.com/tressi/tressi/testserver"
)

const overrunHTTPPlan = `
target "t" {
  url     = "http://%s"
  timeout = "3s"
}
scenario "s" {
  step "slow" {
    path   = "/delay/2000"
    repeat = 3
  }
}
load {
  stage {
    duration = "200ms"
    rate     = 10
  }
}
`

const overrunWSPlan = `
target "t" {
  url     = "ws://%s"
  timeout = "3s"
}
scenario "s" {
  step "connect" {
    connect = "/ws/echo"
  }
  step "slow" {
    send   = jsonencode({ delay_ms = 2000, n = "${seq}" })
    repeat = 3
    await {
      json = { n = "${seq}" }
    }
  }
  step "close" {
    close = 1000
  }
}
load {
  stage {
    duration = "200ms"
    rate     = 10
  }
}
`

// A run stops at its documented bound, the schedule's end plus the longer
// of the grace and the timeout (here 0.2 s + 3 s), even with a request in
// flight there: each session's second request, sent at 2 s and to be
// answered at 4 s, is cut at the bound and interrupted; its third is
// not_sent; the outcome says the run overran. Before, the second request
// was answered past the bound (it had its whole timeout), and the run
// ended at 4 s and more (5.2 s with 2.5 s answers).
func TestRunStopsAtItsBound(t *testing.T) {
	addr := startTarget(t, testserver.Options{ShutdownGrace: 100 * time.Millisecond})
	cases := []struct{ name, plan, engine, step string }{
		{"http/loop", overrunHTTPPlan, EngineLoop, "s.slow"},
		{"http/fasthttp", overrunHTTPPlan, EngineFasthttp, "s.slow"},
		{"websocket", overrunWSPlan, "", "s.slow"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			s := compilePlan(t, fmt.Sprintf(c.plan, addr), nil)
			grace := 100 * time.Millisecond
			bound := s.Duration + max(grace, s.Targets[0].Timeout)
			dir := filepath.Join(t.TempDir(), "run")
			out, err := Run(t.Context(), s, Options{OutDir: dir, Grace: grace, Engine: c.engine})
			if err != nil {
				t.Fatal(err)
			}
			rows, _ := sessionRows(t, dir)
			for k, rs := range rows {
				var got []string
				for _, r := range rs {
					if r.Name == c.step {
						got = append(got, r.Error.String())
					}
				}
				want := []string{"", results.Interrupted.String(), results.NotSent.String()}
				if fmt.Sprint(got) != fmt.Sprint(want) {
					t.Fatalf("%s: slot %d: %s rows %q, want %q", out.Engine, k, c.step, got, want)
				}
			}
			if !out.Overran || exitStatus(out, nil) != "overran" {
				t.Fatalf("%s: outcome %+v, want overran", out.Engine, out)
			}
			// The rows above already show the cut came before 4 s (the second
			// answers would have been ok). The run's own clock, from instant
			// zero (after the warm-up) to its end, gets a loaded machine's
			// margin for the wind-down: two suites at once took 1.7 and 2.5 s
			// past the bound from before the warm-up.
			if ran := out.End.Sub(out.Start); ran > bound+2*time.Second {
				t.Fatalf("%s: the run took %v from instant zero, its bound is %v", out.Engine, ran, bound)
			}
		})
	}
}
