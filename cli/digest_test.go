package cli

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/tressi/tressi/exec"
	"github.com/tressi/tressi/internal/digest"
	"github.com/tressi/tressi/testserver"
)

// digest_auth answers the built-in target's Digest challenges, MD5 and
// SHA-256: a session pays the challenge once (its first request's row
// covers both exchanges), and its later requests answer up front, so the
// target sees one 401 per session. A wrong password is the 401's row.
func TestDigestAuth(t *testing.T) {
	srv, addr, err := testserver.StartLoopback(t)
	if err != nil {
		t.Fatal(err)
	}
	plan := func(alg, password, engine string) string {
		return fmt.Sprintf(`
variable "password" {
  type      = string
  default   = %q
  sensitive = true
}
target "t" {
  url         = "http://%s"
  timeout     = "30s"
  digest_auth = { username = "bob", password = var.password }
}
scenario "s" {
  step "get" {
    path   = "/digest-auth/auth/bob/s3cret/%s"
    repeat = 3
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
thresholds {
  allow_all_failed = true
}
`, password, addr, alg)
	}
	for _, c := range []struct {
		alg, password string
		ok            int64
		routed        uint64 // requests the target answered
	}{
		{"MD5", "s3cret", 30, 40},
		{"SHA-256", "s3cret", 30, 40},
		{"SHA-256", "wrong", 0, 60}, // each request: challenge, wrong answer, 401
	} {
		t.Run(c.alg+"/"+c.password, func(t *testing.T) {
			srv.ResetStats()
			requests, ok := applyJSON(t, plan(c.alg, c.password, ""))
			if requests != 30 || ok != c.ok {
				t.Fatalf("%d requests, %d ok, want 30 and %d", requests, ok, c.ok)
			}
			if got := srv.Stats().Routes["digest_auth"]; got != c.routed {
				t.Errorf("the target answered %d requests, want %d", got, c.routed)
			}
		})
	}
	path := writePlan(t, plan("MD5", "s3cret", ""))
	if code, _, errs := run(t, nil, "apply", path, "--quiet", "--engine", exec.EngineFasthttp, "--out", filepath.Join(t.TempDir(), "run")); code != ExitInvalid || !strings.Contains(errs, "digest_auth") {
		t.Errorf("fasthttp: exit %d, %s", code, errs)
	}
}

// A server that closes the connection with its challenge gets the answer
// on a new connection; the row still covers both exchanges.
func TestDigestAuthAfterTheServerCloses(t *testing.T) {
	var challenges, accepted atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if a, err := digest.ParseAuthorization(r.Header.Get("Authorization")); err == nil && a.Valid("pw", r.Method) && a.URI == r.RequestURI {
			accepted.Add(1)
			return
		}
		challenges.Add(1)
		w.Header().Set("Connection", "close")
		w.Header().Set("WWW-Authenticate", `Digest realm="r", nonce="n-`+r.RequestURI+`", qop="auth", algorithm=SHA-256`)
		w.WriteHeader(http.StatusUnauthorized)
	}))
	defer srv.Close()
	requests, ok := applyJSON(t, fmt.Sprintf(`
target "t" {
  url     = %q
  timeout = "30s"
}
endpoint "e" {
  path        = "/x"
  digest_auth = { username = "u", password = "pw" }
  expect {
    status = [200]
  }
}
load {
  stage {
    duration = "500ms"
    rate     = 10
  }
}
`, srv.URL))
	if requests != 5 || ok != 5 || accepted.Load() != 5 || challenges.Load() < 1 {
		t.Fatalf("%d requests, %d ok; the server challenged %d and accepted %d", requests, ok, challenges.Load(), accepted.Load())
	}
}
