package exec

import (
	"fmt"
	"testing"

	"github.com/tressi/tressi/results"
	"github.com/tressi/tressi/testserver"
)

// bigEchoPlan sends three 150 KB frames back to back, each awaiting its
// echo: the replies (450 KB) come back together, several of the loop's
// 64 KiB reads' worth, and the sends themselves outrun the socket's send
// buffer.
const bigEchoPlan = `
target "t" {
  url = "ws://%s"
}
scenario "s" {
  step "connect" {
    connect = "/ws/echo"
  }
  step "big" {
    send   = format("%%0150000d", 0)
    repeat = 3
    wait   = false
    await {
      timeout = "5s"
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

// The WebSocket loop's sockets are edge-triggered: a socket is reported
// once per arrival, so the loop must read all that came (until a short
// read), and finish writing what the socket did not take when it says it
// can. Replies larger than one read and frames larger than the send buffer
// are all answered; a socket left half read would wait for an arrival that
// never comes, and its awaits would time out.
func TestWSRepliesLargerThanOneRead(t *testing.T) {
	addr := startTarget(t, testserver.Options{})
	s := compilePlan(t, fmt.Sprintf(bigEchoPlan, addr), nil)
	rows, sum, _ := runWS(t, s)
	checkSessionRows(t, s, rows)
	for k, rs := range rows {
		for _, r := range rs {
			if r.Error != results.None {
				t.Fatalf("slot %d: %s: %s", k, r.Name, r.Error)
			}
		}
	}
	if sum.Messages.Unmatched != 0 || sum.Sessions.Completed != s.Count {
		t.Fatalf("summary: %+v", sum)
	}
}
