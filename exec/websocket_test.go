package exec

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/tressi/tressi/results"
	"github.com/tressi/tressi/testserver"
)

const outOfOrderPlan = `
target "t" {
  url = "ws://%s"
}
scenario "s" {
  step "connect" {
    connect = "/ws/echo"
  }
  step "slow" {
    send = jsonencode({ delay_ms = 400, n = "slow-${seq}" })
    wait = false
    await {
      json = { n = "slow-${seq}" }
    }
  }
  step "fast" {
    send   = jsonencode({ n = "fast-${seq}" })
    repeat = 3
    await {
      json = { n = "fast-${seq}" }
    }
  }
  step "close" {
    close = 1000
  }
}
load {
  stage {
    duration = "1s"
    rate     = 5
  }
}
`

// Two awaits outstanding at once are answered out of order: the slow
// reply arrives after the fast ones, and each goes to the await it
// matches, not to the oldest.
func TestWSOutOfOrderAwaits(t *testing.T) {
	addr := startTarget(t, testserver.Options{})
	s := compilePlan(t, fmt.Sprintf(outOfOrderPlan, addr), nil)
	rows, sum, _ := runWS(t, s)
	checkSessionRows(t, s, rows)
	for k, rs := range rows {
		var slow, fastMax int64
		for _, r := range rs {
			if r.Error != results.None {
				t.Fatalf("slot %d: %s failed: %s", k, r.Name, r.Error)
			}
			switch r.Name {
			case "s.slow":
				slow = r.Latency
			case "s.fast":
				fastMax = max(fastMax, r.Latency)
			case "s.connect":
				if r.Status != 101 {
					t.Fatalf("connect status %d", r.Status)
				}
			case "s.close":
				if r.Status != 1000 {
					t.Fatalf("close status %d", r.Status)
				}
			}
		}
		if slow < int64(400*time.Millisecond) || fastMax >= slow {
			t.Fatalf("slot %d: slow answered after %v, fast ones after at most %v", k, time.Duration(slow), time.Duration(fastMax))
		}
	}
	if sum.Messages.Unmatched != 0 || sum.Sessions.Completed != s.Count {
		t.Fatalf("summary: %+v", sum)
	}
}

const closesPlan = `
target "t" {
  url = "http://%s"
}
scenario "s" {
  step "connect" {
    connect = "/ws/echo?close_after=2"
  }
  step "msg" {
    send   = "m-${seq}"
    repeat = 5
    await {
      regex = "^m-"
    }
  }
  step "more" {
    send = "x"
  }
  step "close" {
    close = 1000
  }
}
load {
  stage {
    duration = "1s"
    rate     = 3
  }
}
`

// The server closes after the second message, answering only the first:
// the second send gets ws_closed, and every slot still to come its row.
func TestWSServerClosesMidSession(t *testing.T) {
	addr := startTarget(t, testserver.Options{})
	s := compilePlan(t, fmt.Sprintf(closesPlan, addr), nil)
	rows, sum, _ := runWS(t, s)
	checkSessionRows(t, s, rows)
	for k, rs := range rows {
		got := []string{}
		for _, r := range rs {
			got = append(got, r.Name+":"+r.Error.String())
		}
		want := []string{"s.connect:", "s.msg:", "s.msg:ws_closed", "s.msg:ws_closed", "s.msg:ws_closed", "s.msg:ws_closed", "s.more:ws_closed", "s.close:ws_closed"}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("slot %d rows %v, want %v", k, got, want)
		}
	}
	if sum.Sessions.Failed != s.Count {
		t.Fatalf("sessions: %+v", sum.Sessions)
	}
}

const holdPlan = `
target "t" {
  url = "http://%s"
}
scenario "s" {
  step "connect" {
    connect = "/ws/echo"
  }
  step "idle" {
    hold = "4500ms"
  }
  step "close" {
    close = 1001
  }
}
load {
  stage {
    duration = "200ms"
    rate     = 20
  }
}
`

// A held session answers the server's pings; the target drops a client
// silent for its idle timeout, so a session that did not answer would end
// in ws_closed instead of a clean close. The hold is three idle timeouts
// long; the timeout is 1.5 s so that a loop starved by a busy machine (the
// race detector, other tests: two suites at once once reset a session at
// 1 s) is not taken for a silent one.
func TestWSHoldAnswersPings(t *testing.T) {
	addr := startTarget(t, testserver.Options{WSPingInterval: 100 * time.Millisecond, WSIdleTimeout: 1500 * time.Millisecond})
	s := compilePlan(t, fmt.Sprintf(holdPlan, addr), nil)
	rows, sum, _ := runWS(t, s)
	checkSessionRows(t, s, rows)
	for k, rs := range rows {
		for _, r := range rs {
			if r.Error != results.None {
				t.Fatalf("slot %d: %s: %s", k, r.Name, r.Error)
			}
		}
	}
	if sum.Sessions.Completed != s.Count {
		t.Fatalf("sessions %+v", sum.Sessions)
	}
}

const interruptPlan = `
target "t" {
  url = "ws://%s"
}
scenario "s" {
  step "connect" {
    connect = "/ws/echo"
  }
  step "slow" {
    send = jsonencode({ delay_ms = 3000, n = "s-${seq}" })
    wait = false
    await {
      json = { n = "s-${seq}" }
    }
  }
  step "msg" {
    send   = "m"
    repeat = 20
    think  = "50ms"
    await {
      regex = "^m$"
    }
  }
  step "close" {
    close = 1000
  }
}
load {
  stage {
    duration = "2s"
    rate     = 10
  }
}
`

// An interrupt half-way: sessions never started, steps never sent and
// answers still awaited after the grace each keep their rows.
func TestWSInterruptAccountsEverySlot(t *testing.T) {
	addr := startTarget(t, testserver.Options{})
	s := compilePlan(t, fmt.Sprintf(interruptPlan, addr), nil)
	dir := filepath.Join(t.TempDir(), "run")
	stop := make(chan struct{})
	time.AfterFunc(700*time.Millisecond, func() { close(stop) })
	out, err := Run(context.Background(), s, Options{OutDir: dir, Interrupt: stop, Grace: 300 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if !out.Interrupted {
		t.Fatalf("outcome %+v", out)
	}
	rows, _ := sessionRows(t, dir)
	checkSessionRows(t, s, rows)
	kinds := map[results.ErrorKind]int{}
	for _, rs := range rows {
		for _, r := range rs {
			kinds[r.Error]++
		}
	}
	if kinds[results.NotSent] == 0 || kinds[results.Interrupted] == 0 || kinds[results.None] == 0 {
		t.Fatalf("error kinds %v: want ok, not_sent and interrupted rows", kinds)
	}
}

const skipPlan = `
target "t" {
  url = "ws://%s"
}
scenario "s" {
  step "connect" {
    connect = "/ws/echo"
  }
  step "list" {
    send    = jsonencode({ list = [{ topic = "grpA" }, { topic = "chnB" }, { topic = "grpC" }] })
    await {}
    capture = { topics = json("list[*].topic") }
  }
  step "topics" {
    for_each = captured.topics
    max      = 5
    step "pub" {
      send    = jsonencode({ pub = { id = "p-${seq}-${each.index}", topic = each.value } })
      skip_if = "\"topic\":\"chn"
      repeat  = 2
      await {
        json = { "pub.id" = "p-${seq}-${each.index}" }
      }
    }
  }
  step "close" {
    close = 1000
  }
}
load {
  stage {
    duration = "1s"
    rate     = 4
  }
}
thresholds {
  error_rate = 0.01
}
`

// A send skip_if matches is not sent: its rows are `skipped`, as the
// iterations beyond the captured array are `no_item`, and neither kind is a
// request or an error in the run's totals or its verdict.
func TestWSSkipIfAndMissingItems(t *testing.T) {
	addr := startTarget(t, testserver.Options{})
	s := compilePlan(t, fmt.Sprintf(skipPlan, addr), nil)
	dir := filepath.Join(t.TempDir(), "run")
	out, err := Run(context.Background(), s, Options{OutDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	rows, _ := sessionRows(t, dir)
	checkSessionRows(t, s, rows)
	for k, rs := range rows {
		kinds := map[results.ErrorKind]int{}
		for _, r := range rs {
			kinds[r.Error]++
		}
		// connect, list, 3 items × 2 pubs (one item skipped), 2 missing
		// items × 2, close.
		if kinds[results.None] != 7 || kinds[results.Skipped] != 2 || kinds[results.NoItem] != 4 || len(kinds) != 3 {
			t.Fatalf("slot %d: row kinds %v", k, kinds)
		}
	}
	if want := 7 * s.Count; out.Requests != want || out.OK != want {
		t.Fatalf("requests %d ok %d, want %d of each (skipped and no_item rows are not requests)", out.Requests, out.OK, want)
	}
	for _, th := range out.Thresholds {
		if !th.OK {
			t.Fatalf("threshold %s failed: %+v", th.Name, th)
		}
	}
	sum, err := results.ReadWebSocketSummary(dir)
	if err != nil || sum == nil {
		t.Fatalf("websocket.json: %v", err)
	}
	if sum.Messages.Sent != 6*s.Count || sum.Sessions.Completed != s.Count {
		t.Fatalf("summary %+v: want %d frames sent (the skipped ones are not)", sum, 6*s.Count)
	}
}

const exitPlan = `
target "t" {
  url = "ws://%s"
}
scenario "s" {
  step "connect" {
    connect = "/ws/echo"
  }
  step "list" {
    send    = jsonencode({ list = [{ t = "a" }, { t = "b" }, { t = "c" }, { t = "d" }] })
    await {}
    capture = { items = json("list[*].t") }
  }
  step "items" {
    for_each = captured.items
    max      = 5
    step "pub" {
      send           = "{\"id\":\"p-${seq}-${each.value}\",\"code\":40${each.index}}"
      exit_if_failed = true
      await {
        json   = { id = "p-${seq}-${each.value}" }
        status = "code"
      }
      expect { status = [400, 401] }
    }
  }
  step "after" {
    send = "x"
    await {}
  }
  step "close" {
    close = 1000
  }
}
load {
  stage {
    duration = "1s"
    rate     = 3
  }
}
`

// exit_if_failed ends the session at the first failed answer of its step,
// as Gatling's exitHereIfFailed: the third item answers 402, outside
// expect, so the fourth item, the step after the for_each and the close
// are skipped, the fifth iteration (beyond the array) is no_item, and only
// the rows sent count as requests.
func TestWSExitIfFailed(t *testing.T) {
	addr := startTarget(t, testserver.Options{})
	s := compilePlan(t, fmt.Sprintf(exitPlan, addr), nil)
	dir := filepath.Join(t.TempDir(), "run")
	out, err := Run(context.Background(), s, Options{OutDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	rows, _ := sessionRows(t, dir)
	checkSessionRows(t, s, rows)
	for k, rs := range rows {
		kinds := map[results.ErrorKind]int{}
		var statuses []uint16
		for _, r := range rs {
			kinds[r.Error]++
			if r.Name == "s.pub" && r.Error == results.None {
				statuses = append(statuses, r.Status)
			}
		}
		if kinds[results.None] != 5 || kinds[results.Skipped] != 3 || kinds[results.NoItem] != 1 || len(kinds) != 3 ||
			fmt.Sprint(statuses) != "[400 401 402]" {
			t.Fatalf("slot %d: row kinds %v, pub statuses %v", k, kinds, statuses)
		}
	}
	if out.Requests != 5*s.Count || out.OK != 4*s.Count {
		t.Fatalf("requests %d ok %d, want %d and %d", out.Requests, out.OK, 5*s.Count, 4*s.Count)
	}
	sum, err := results.ReadWebSocketSummary(dir)
	if err != nil || sum == nil {
		t.Fatalf("websocket.json: %v", err)
	}
	if sum.Sessions.Failed != s.Count || sum.Messages.Sent != 4*s.Count {
		t.Fatalf("summary %+v: want every session failed after 4 frames", sum)
	}
}
