package exec

import (
	"errors"
	"strings"
	"testing"
)

// A plan mixing HTTP entries with WebSocket scenarios is refused before
// anything is sent, with what to do instead; so is a WebSocket target
// asked to speak HTTP/2.
func TestWSRefusesWhatItCannotRun(t *testing.T) {
	for _, tc := range []struct{ name, src, want string }{
		{"mixed", `
target "t" {
  url = "ws://127.0.0.1:1"
}
endpoint "login" {
  method = "POST"
  path   = "/login"
}
scenario "s" {
  step "connect" {
    connect = "/ws/echo"
  }
}
load {
  stage {
    duration = "1s"
    rate     = 1
  }
}
`, `"login" is an HTTP endpoint or scenario in a plan with WebSocket scenarios`},
		{"h2", `
target "t" {
  url      = "https://127.0.0.1:1"
  protocol = "h2"
}
scenario "s" {
  step "connect" {
    connect = "/ws/echo"
  }
}
load {
  stage {
    duration = "1s"
    rate     = 1
  }
}
`, `WebSocket sessions upgrade over HTTP/1.1`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := compilePlan(t, tc.src, nil)
			_, err := Run(t.Context(), s, Options{OutDir: t.TempDir() + "/run"})
			var ie *InputError
			if !errors.As(err, &ie) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want an input error saying %q", err, tc.want)
			}
		})
	}
}
