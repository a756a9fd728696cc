package compile

import (
	"strings"
	"testing"
	"testing/fstest"

	"github.com/tressi/tressi/plan"
)

const redirectsLoad = `
load {
  stage {
    duration = "1s"
    rate     = 1
  }
}
`

// A request follows its own redirects, else its target's; 0 follows none
// even under a target that follows some.
func TestRedirectsInherit(t *testing.T) {
	s := compileFS(t, fstest.MapFS{"p.hcl": {Data: []byte(`
target "t" {
  url       = "http://127.0.0.1:8080"
  redirects = 5
}
endpoint "inherits" {
  path = "/a"
}
endpoint "none" {
  path      = "/b"
  redirects = 0
}
scenario "s" {
  step "own" {
    path      = "/c"
    redirects = 2
  }
}
` + redirectsLoad)}})
	got := map[string]int{}
	for _, r := range s.Requests {
		got[r.Name] = r.Redirects
	}
	if got["inherits"] != 5 || got["none"] != 0 || got["s.own"] != 2 {
		t.Errorf("redirects by request: %v", got)
	}
}

// A WebSocket scenario's steps answer once: redirects there is refused
// where it is written.
func TestRedirectsRefusedInWebSocketScenarios(t *testing.T) {
	p, _, diags := plan.Load(plan.Options{Path: "p.hcl", FS: fstest.MapFS{"p.hcl": {Data: []byte(`
target "chat" {
  url = "ws://127.0.0.1:6060"
}
scenario "chat" {
  step "auth" {
    method    = "POST"
    path      = "/auth"
    redirects = 3
  }
  step "connect" {
    connect = "/ws"
  }
}
` + redirectsLoad)}}})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	_, diags = Compile(p)
	if !diags.HasErrors() || !strings.Contains(diags.Error(), "redirects is not followed in a WebSocket scenario") || diags[0].Subject == nil || diags[0].Subject.Start.Line != 6 {
		t.Errorf("diagnostics: %v", diags)
	}
}
