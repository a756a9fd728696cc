package exec

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tressi/tressi/results"
)

// capPlan: sessions that connect, hold, and close, at %d connections, with
// a %s timeout; the rate and hold are %d per second over 500 ms and %s.
const capPlan = `
target "t" {
  url         = "ws://%s"
  connections = %d
  timeout     = "%s"
}
scenario "s" {
  step "connect" {
    connect = "/echo"
  }
  step "idle" {
    hold = "%s"
  }
  step "close" {
    close = 1000
  }
}
load {
  stage {
    duration = "500ms"
    rate     = %d
  }
}
`

// connections caps the sessions connected at once: 10 sessions due within
// half a second, each holding 300 ms, over 2 connections. The server never
// holds more than 2; the sessions that waited show the wait in their
// connect row's latency, and all of them complete.
func TestWSConnectionsCapSessions(t *testing.T) {
	var conns, most atomic.Int64
	addr := startCoderEchoLive(t, nil, &conns, &most)
	s := compilePlan(t, fmt.Sprintf(capPlan, addr, 2, "20s", "300ms", 20), nil)
	rows, sum, _ := runWS(t, s)
	checkSessionRows(t, s, rows)
	waited := 0
	for k, rs := range rows {
		for _, r := range rs {
			if r.Error != results.None {
				t.Fatalf("slot %d: %s: %s", k, r.Name, r.Error)
			}
			if r.Name == "s.connect" && r.Latency >= int64(250*time.Millisecond) {
				waited++
			}
		}
	}
	if got := most.Load(); got > 2 || got < 1 {
		t.Fatalf("the server held %d connections at once, want at most 2", got)
	}
	if waited < 4 {
		t.Fatalf("%d connect rows show a wait for a connection; with 2 connections for 10 sessions at least 4 must", waited)
	}
	if sum.Sessions.Completed != s.Count || conns.Load() != s.Count {
		t.Fatalf("sessions %+v, server upgrades %d", sum.Sessions, conns.Load())
	}
}

// A session that waits for a connection past its connect step's timeout
// gets a timeout connect row and ws_closed for the rest; the one holding
// the connection is unaffected.
func TestWSQueuedSessionTimesOut(t *testing.T) {
	var conns atomic.Int64
	addr := startCoderEcho(t, nil, &conns)
	s := compilePlan(t, fmt.Sprintf(capPlan, addr, 1, "300ms", "2s", 4), nil)
	rows, _, _ := runWS(t, s)
	checkSessionRows(t, s, rows)
	kinds := map[string]int{}
	for _, rs := range rows {
		for _, r := range rs {
			kinds[r.Name+":"+r.Error.String()]++
		}
	}
	want := map[string]int{"s.connect:": 1, "s.close:": 1, "s.connect:timeout": 1, "s.close:ws_closed": 1}
	if fmt.Sprint(kinds) != fmt.Sprint(want) {
		t.Fatalf("rows %v, want %v", kinds, want)
	}
}

// The schedule's end plus the grace cuts sessions still going past what
// they declare (their holds and thinks are theirs to take; see
// TestDeclaredPausesAreNotCutOff): sessions of 200,000 echoes stop
// sending, what they have left is not_sent, and the outcome says the run
// overran. Every slot keeps its rows.
func TestWSScheduleEndCutsSessions(t *testing.T) {
	var conns atomic.Int64
	addr := startCoderEcho(t, nil, &conns)
	s := compilePlan(t, fmt.Sprintf(`
target "t" {
  url     = "ws://%s"
  timeout = "1s"
}
scenario "s" {
  step "connect" {
    connect = "/echo"
  }
  step "say" {
    send   = "echo ${seq}"
    repeat = 200000
    await {
      regex = "^echo "
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
`, addr), nil)
	dir := filepath.Join(t.TempDir(), "run")
	start := time.Now()
	out, err := Run(context.Background(), s, Options{OutDir: dir, Grace: 200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if took := time.Since(start); took > 30*time.Second {
		t.Fatalf("the run took %v: the schedule's end did not cut the sessions", took)
	}
	if !out.Overran || out.Interrupted {
		t.Fatalf("outcome %+v, want overran", out)
	}
	rows, _ := sessionRows(t, dir)
	checkSessionRows(t, s, rows)
	for k, rs := range rows {
		last := rs[len(rs)-1]
		if rs[0].Name != "s.connect" || rs[0].Error != results.None || last.Name != "s.close" || last.Error != results.NotSent || rs[len(rs)-2].Error != results.NotSent {
			t.Fatalf("slot %d: first row %s %s, last two %s %s: want the connect ok and the echoes left and the close not_sent",
				k, rs[0].Name, rs[0].Error, rs[len(rs)-2].Error, last.Error)
		}
	}
}

// An interrupt or an early exit (a threshold) stops held sessions at once,
// not at the end of their hold: each records its close as not_sent, the
// sessions never started record every row as not_sent, and the run ends
// within the grace.
func TestWSStopCutsHeldSessions(t *testing.T) {
	for _, tc := range []struct {
		name      string
		interrupt bool
	}{{"interrupt", true}, {"early exit", false}} {
		t.Run(tc.name, func(t *testing.T) {
			var conns atomic.Int64
			addr := startCoderEcho(t, nil, &conns)
			// Stretch the schedule: the stop comes part-way.
			s := compilePlan(t, strings.Replace(fmt.Sprintf(capPlan, addr, 64, "10s", "60s", 20), `duration = "500ms"`, `duration = "4s"`, 1), nil)
			opt := Options{OutDir: filepath.Join(t.TempDir(), "run"), Grace: 300 * time.Millisecond}
			if tc.interrupt {
				stop := make(chan struct{})
				time.AfterFunc(700*time.Millisecond, func() { close(stop) })
				opt.Interrupt = stop
			} else {
				// Stop on the first upgrade's 101: the held sessions
				// never reach their close.
				s.Thresholds = results.Thresholds{StatusCodes: []int{101}, Abort: true}
			}
			start := time.Now()
			out, err := Run(context.Background(), s, opt)
			if err != nil {
				t.Fatal(err)
			}
			if took := time.Since(start); took > 20*time.Second {
				t.Fatalf("the run took %v: the stop did not cut the held sessions", took)
			}
			if out.Interrupted != tc.interrupt || out.EarlyExit == tc.interrupt || out.Overran {
				t.Fatalf("outcome %+v", out)
			}
			rows, _ := sessionRows(t, opt.OutDir)
			checkSessionRows(t, s, rows)
			kinds := map[string]int{}
			for _, rs := range rows {
				for _, r := range rs {
					kinds[r.Name+":"+r.Error.String()]++
				}
			}
			// A connect still in its handshake at the stop is interrupted.
			if kinds["s.connect:"] == 0 || kinds["s.close:not_sent"] != int(s.Count) || kinds["s.connect:not_sent"] == 0 ||
				kinds["s.connect:"]+kinds["s.connect:interrupted"]+kinds["s.connect:not_sent"] != int(s.Count) {
				t.Fatalf("rows %v", kinds)
			}
		})
	}
}
