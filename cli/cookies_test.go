package cli

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"testing"

	"github.com/tressi/tressi/exec"
	"github.com/tressi/tressi/testserver"
)

// applyJSON runs `tressi apply --json` on src and returns the report's
// requests and ok counts.
func applyJSON(t *testing.T, src string, args ...string) (requests, ok int64) {
	t.Helper()
	path := writePlan(t, src)
	code, out, errs := run(t, nil, append([]string{"apply", path, "--json", "--out", filepath.Join(t.TempDir(), "run")}, args...)...)
	var rep struct{ Requests, OK int64 }
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("exit %d, report %v:\n%s\n%s", code, err, out, errs)
	}
	return rep.Requests, rep.OK
}

// Where cookies are kept decides what the built-in target's /cookie/me
// accepts: a session's own jar (the default, also over h2c), the run's
// shared jar across endpoints, or none.
func TestCookieModes(t *testing.T) {
	srv, addr, err := testserver.StartLoopback(t)
	if err != nil {
		t.Fatal(err)
	}
	scenario := func(protocol, cookies string) string {
		return fmt.Sprintf(`
target "t" {
  url      = "http://%s"
  protocol = %q
  timeout  = "30s"
}
scenario "s" {
  %s
  step "login" {
    method = "POST"
    path   = "/cookie/login"
  }
  step "me" {
    path   = "/cookie/me"
    repeat = 2
  }
}
load {
  stage {
    duration = "1s"
    rate     = 20
  }
}
thresholds {
  allow_all_failed = true
}
`, addr, protocol, cookies)
	}
	for _, c := range []struct {
		name, src, engine string
		ok                int64 // of 60 requests
		stats             testserver.CookieStats
	}{
		{"session jar over HTTP/1.1", scenario("http1", ""), exec.EngineLoop, 60,
			testserver.CookieStats{Logins: 20, Sessions: 20, Requests: 40, MinUses: 2, MaxUses: 2}},
		{"session jar over h2c", scenario("h2c", `cookies = "session"`), exec.EngineLoop, 60,
			testserver.CookieStats{Logins: 20, Sessions: 20, Requests: 40, MinUses: 2, MaxUses: 2}},
		{"off", scenario("http1", `cookies = "off"`), exec.EngineLoop, 20,
			testserver.CookieStats{Logins: 20, Rejected: 40}},
		{"off on fasthttp", scenario("http1", `cookies = "off"`), exec.EngineFasthttp, 20,
			testserver.CookieStats{Logins: 20, Rejected: 40}},
		// One user alternating login and me: the endpoints share the
		// run's jar, so every me carries the login just before it.
		{"shared endpoints", fmt.Sprintf(`
target "t" {
  url     = "http://%s"
  timeout = "30s"
}
endpoint "login" {
  method  = "POST"
  path    = "/cookie/login"
  cookies = "shared"
}
endpoint "me" {
  path    = "/cookie/me"
  cookies = "shared"
}
load {
  model     = "closed"
  selection = "round_robin"
  think     = "10ms"
  stage {
    duration = "1s"
    users    = 1
  }
}
`, addr), exec.EngineLoop, -1, testserver.CookieStats{}},
	} {
		t.Run(c.name, func(t *testing.T) {
			srv.ResetStats()
			requests, ok := applyJSON(t, c.src, "--engine", c.engine)
			got := srv.Stats().Cookies
			if c.ok < 0 { // shared: every request ok, each me on the cookie of the login before it
				if requests < 4 || ok != requests || got.Rejected != 0 || got.Sessions != got.Logins && got.Sessions != got.Logins-1 || got.MaxUses != 1 {
					t.Fatalf("%d requests, %d ok; target %+v", requests, ok, got)
				}
				return
			}
			if requests != 60 || ok != c.ok || got != c.stats {
				t.Fatalf("%d requests, %d ok, want 60 and %d; the target counted %+v, want %+v", requests, ok, c.ok, got, c.stats)
			}
		})
	}
}

// cookie("NAME") captures what the session's jar holds after the step:
// the server checks that a later step sends it back, beside the Cookie
// header the jar itself adds.
func TestCookieCapture(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/login":
			http.SetCookie(w, &http.Cookie{Name: "sid", Value: "s-" + r.URL.Query().Get("n"), Path: "/"})
		case "/check":
			c, err := r.Cookie("sid")
			if err != nil || c.Value == "" || r.Header.Get("X-Sid") != c.Value {
				w.WriteHeader(http.StatusBadRequest)
			}
		}
	}))
	defer srv.Close()
	for _, engine := range []string{exec.EngineLoop, exec.EngineFasthttp} {
		t.Run(engine, func(t *testing.T) {
			requests, ok := applyJSON(t, fmt.Sprintf(`
target "t" {
  url = %q
}
scenario "s" {
  step "login" {
    path    = "/login?n=${seq}"
    capture = { sid = cookie("sid") }
  }
  step "check" {
    path    = "/check"
    headers = { "X-Sid" = captured.sid }
    expect {
      status = [200]
    }
  }
}
load {
  stage {
    duration = "500ms"
    rate     = 20
  }
}
`, srv.URL), "--engine", engine)
			if requests != 20 || ok != 20 {
				t.Fatalf("%d requests, %d ok, want 20 all ok", requests, ok)
			}
		})
	}
}
