package exec

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"

	"github.com/tressi/tressi/testserver"
)

// The live line counts a WebSocket session's frames as sent, as it counts
// HTTP requests: its last redraw says as many as the rows that went out
// (it said "sent 0" for every WebSocket run).
func TestProgressCountsWebSocketFramesSent(t *testing.T) {
	addr := startTarget(t, testserver.Options{})
	s := compilePlan(t, fmt.Sprintf(`
target "t" {
  url     = "ws://%s"
  timeout = "30s"
}
scenario "s" {
  step "connect" {
    connect = "/ws/echo"
  }
  step "hello" {
    send   = "hello ${seq}"
    repeat = 2
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
    duration = "200ms"
    rate     = 50
  }
}
`, addr), nil)
	var progress bytes.Buffer
	dir := filepath.Join(t.TempDir(), "run")
	if _, err := Run(context.Background(), s, Options{OutDir: dir, Progress: &progress, Terminal: true}); err != nil {
		t.Fatal(err)
	}
	rows, _ := sessionRows(t, dir)
	var sent int
	for _, rs := range rows {
		for _, r := range rs {
			if r.Sent >= 0 {
				sent++
			}
		}
	}
	lines := bytes.Split(progress.Bytes(), []byte("\r\x1b[K"))
	last := string(lines[len(lines)-1])
	m := regexp.MustCompile(`  sent (\d+)  `).FindStringSubmatch(last)
	if m == nil {
		t.Fatalf("the last progress line has no sent figure: %q", last)
	}
	if got, _ := strconv.Atoi(m[1]); got != sent || sent < 10*4 {
		t.Fatalf("the live line says sent %d, the rows %d (10 sessions of 4): %q", got, sent, last)
	}
}
