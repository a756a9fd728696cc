package plan

import (
	"slices"
	"testing"
	"testing/fstest"
)

// Which texts a plan cuts out of everything shown or stored: the
// sensitive variable's own, and the words of request values its mark
// reached through functions (path, headers, body, a WebSocket send),
// never the words the plan's author typed nor values the mark never
// reached.
func TestSecretsFollowTheSensitiveMark(t *testing.T) {
	src := `
variable "pass" {
  sensitive = true
}
variable "user" {
  default = "alice"
}
target "t" {
  url = "http://127.0.0.1:1"
}
endpoint "e" {
  path    = "/p?sig=${base64encode(upper(var.pass))}"
  headers = { Authorization = "Basic ${base64encode("${var.user}:${var.pass}")}", "X-User" = upper(var.user) }
  body    = jsonencode({ secret = upper(var.pass), n = "${seq}" })
}
scenario "s" {
  step "connect" {
    connect = "/ws"
  }
  step "login" {
    send = jsonencode({ login = lower("${var.pass}XYZW") })
  }
}
load {
  stage {
    duration = "1s"
    rate     = 1
  }
}
`
	p, _, diags := Load(Options{Path: "p.hcl", FS: fstest.MapFS{"p.hcl": {Data: []byte(src)}}, Vars: []VarArg{{Value: "pass=alice123"}}})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	for _, want := range []string{"alice123", "QUxJQ0UxMjM", "YWxpY2U6YWxpY2UxMjM", "ALICE123", "alice123xyzw"} {
		if !slices.Contains(p.Secrets, want) {
			t.Errorf("secrets %q lack %q", p.Secrets, want)
		}
	}
	for _, never := range []string{"Basic", "secret", "login", "ALICE", "alice"} {
		if slices.Contains(p.Secrets, never) {
			t.Errorf("secrets %q hold %q, which is no secret", p.Secrets, never)
		}
	}
}
