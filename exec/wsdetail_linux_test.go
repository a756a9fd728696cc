package exec

import (
	"fmt"
	"strings"
	"testing"

	"github.com/tressi/tressi/results"
	"github.com/tressi/tressi/testserver"
)

const wsDetailPlan = `
target "t" {
  url = "http://%s"
}
scenario "s" {
  step "connect" {
    connect = "%s"
  }
  step "msg" {
    send = "m-${seq}"
    await {
      regex = "^m-"
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

// closeFrameBytes is a client's close frame with a code and no reason:
// 2 header bytes, the 4-byte mask key, the 2-byte code.
const closeFrameBytes = 8

// A WebSocket row that failed says why in its sample's detail: the
// server's close code and reason, the rule of RFC 6455 its frame broke.
// Every connect row counts the upgrade request it wrote, and a close row
// its close frame. These rows once had no detail, and bytes_out 0 on every
// connect row (2 on close rows).
func TestWSErrorRowsSayWhy(t *testing.T) {
	addr := startTarget(t, testserver.Options{})
	cases := []struct {
		path, msg, close string // the msg and close rows' error words
		detail           string // in the msg row's sample
	}{
		{"/ws/echo", "", "", ""},
		{"/fault/ws/close?code=1011&reason=internal%20error", "ws_closed", "ws_closed", `the server closed the connection: 1011 "internal error"`},
		{"/fault/ws/rsv1", "ws_protocol", "ws_protocol", "reserved bits set"},
		{"/fault/ws/utf8", "ws_protocol", "ws_protocol", "not UTF-8"},
		{"/fault/ws/bigping", "ws_protocol", "ws_protocol", "ping frame of 126 bytes (at most 125)"},
	}
	for _, c := range cases {
		t.Run(strings.ReplaceAll(c.path, "/", "_"), func(t *testing.T) {
			s := compilePlan(t, fmt.Sprintf(wsDetailPlan, addr, c.path), nil)
			rows, _, dir := runWS(t, s)
			checkSessionRows(t, s, rows)
			for k, rs := range rows {
				for _, r := range rs {
					switch r.Name {
					case "s.connect":
						if r.Status != 101 || r.Error != results.None || r.BytesOut < 100 {
							t.Fatalf("slot %d: connect row %+v, want 101 with its upgrade request's bytes", k, r)
						}
					case "s.msg":
						if r.Error.String() != c.msg {
							t.Fatalf("slot %d: msg row %s, want %q", k, r.Error, c.msg)
						}
					case "s.close":
						if r.Error.String() != c.close {
							t.Fatalf("slot %d: close row %s, want %q", k, r.Error, c.close)
						}
						if r.Error == results.None && (r.Status != 1000 || r.BytesOut != closeFrameBytes) {
							t.Fatalf("slot %d: close row %+v, want 1000 and its %d-byte frame", k, r, closeFrameBytes)
						}
					}
				}
			}
			if c.detail == "" {
				return
			}
			for _, smp := range readSampleFile(t, dir) {
				if smp.Endpoint == "s.msg" && smp.Error == c.msg {
					if !strings.Contains(smp.Detail, c.detail) {
						t.Fatalf("msg sample detail %q, want it to say %q", smp.Detail, c.detail)
					}
					return
				}
			}
			t.Fatalf("no %s sample of s.msg", c.msg)
		})
	}
}
