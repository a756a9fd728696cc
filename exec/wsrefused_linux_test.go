package exec

import (
	"fmt"
	"strings"
	"testing"

	"github.com/tressi/tressi/results"
	"github.com/tressi/tressi/testserver"
)

const refusedPlan = `
target "t" {
  url = "http://%s"
}
scenario "s" {
%s  step "connect" {
    connect = "%s"
  }
  step "msg" {
    send   = "m-${seq}"
    repeat = 2
    await {
      regex = "^m-"
    }
  }
  step "close" {
    close = 1000
  }
}
load {
%s
}
`

const (
	refusedOpen   = "  stage {\n    duration = \"500ms\"\n    rate     = 10\n  }"
	refusedClosed = "  model = \"closed\"\n  think = \"20ms\"\n  stage {\n    duration = \"500ms\"\n    users    = 2\n  }"
	refusedHTTP   = "  step \"home\" {\n    path = \"/\"\n  }\n"
)

// A refused upgrade (any status but 101, or a 101 with an extension never
// offered) ends the session with one connect row (ws_protocol) and its
// other rows ws_closed: exactly the rows its program schedules, in both
// models, with or without HTTP steps before the connect. The connect row
// was once written twice.
func TestWSRefusedUpgradeRowsOnce(t *testing.T) {
	addr := startTarget(t, testserver.Options{})
	for _, path := range []string{"/status/403", "/status/200", "/fault/ws/extension"} {
		for _, model := range []struct{ name, load string }{{"open", refusedOpen}, {"closed", refusedClosed}} {
			for _, first := range []string{"", refusedHTTP} {
				name := fmt.Sprintf("%s/%s/http-first=%v", path, model.name, first != "")
				t.Run(strings.ReplaceAll(name, "/", "_"), func(t *testing.T) {
					s := compilePlan(t, fmt.Sprintf(refusedPlan, addr, first, path, model.load), nil)
					rows, _, _ := runWS(t, s)
					if model.name == "open" {
						checkSessionRows(t, s, rows)
					} else {
						checkClosedSessionRows(t, s, rows)
					}
					for k, rs := range rows {
						connects := 0
						for _, r := range rs {
							if r.Name != "s.connect" {
								continue
							}
							connects++
							if r.Error != results.WSProtocol {
								t.Fatalf("slot %d: connect row %s, want ws_protocol", k, r.Error)
							}
						}
						if connects != 1 {
							t.Fatalf("slot %d has %d connect rows: %+v", k, connects, rs)
						}
					}
				})
			}
		}
	}
}
