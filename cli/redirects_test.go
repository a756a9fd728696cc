package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tressi/tressi/exec"
	"github.com/tressi/tressi/results"
	"github.com/tressi/tressi/testserver"
)

// redirectRun is what a run of a redirect plan left: its rows by
// (status, error), and meta.json's redirects.
type redirectRun struct {
	rows      map[string]int // "302 too_many_redirects", "200 ", …
	bytesOut  int64
	redirects map[string]int64
}

// applyRedirects runs src with args and reads back its rows and meta.json.
func applyRedirects(t *testing.T, src string, args ...string) redirectRun {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "run")
	code, _, errs := run(t, nil, append([]string{"apply", writePlan(t, src), "--quiet", "--out", dir}, args...)...)
	if code != ExitOK && code != ExitThresholds {
		t.Fatalf("exit %d: %s", code, errs)
	}
	r, err := results.Open(filepath.Join(dir, exec.ResultsFile))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	got := redirectRun{rows: map[string]int{}}
	for {
		b, ok := r.Next()
		if !ok {
			break
		}
		for i := 0; i < b.Len; i++ {
			got.rows[fmt.Sprintf("%d %s", b.Status[i], b.ErrorNames[b.Error[i]])]++
			got.bytesOut += int64(b.BytesOut[i])
			if b.Latency[i] < 0 || b.Sent[i] < b.Scheduled[i] {
				t.Errorf("row %d: latency %d, sent %d, scheduled %d", i, b.Latency[i], b.Sent[i], b.Scheduled[i])
			}
		}
	}
	if r.Err() != nil {
		t.Fatal(r.Err())
	}
	raw, err := os.ReadFile(filepath.Join(dir, "meta.json"))
	if err != nil {
		t.Fatal(err)
	}
	var meta struct{ Redirects map[string]int64 }
	if err := json.Unmarshal(raw, &meta); err != nil {
		t.Fatal(err)
	}
	got.redirects = meta.Redirects
	return got
}

const redirectLoad = `
load {
  stage {
    duration = "500ms"
    rate     = 20
  }
}
thresholds {
  allow_all_failed = true
}
`

// A 3-hop chain is one row per request with the last answer's status, and
// the target answers every hop: rows + meta.json's redirects = what the
// server counted, on both engines and both protocols, with absolute and
// relative Locations.
func TestRedirectChainRowsAndHops(t *testing.T) {
	srv, addr, err := testserver.StartLoopback(t)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ name, engine, protocol, query string }{
		{"loop/http1", exec.EngineLoop, "http1", ""},
		{"loop/h2c", exec.EngineLoop, "h2c", ""},
		{"loop/http1/relative", exec.EngineLoop, "http1", "?rel=1&code=301"},
		{"loop/h2c/relative", exec.EngineLoop, "h2c", "?rel=1&code=308"},
		{"fasthttp/http1", exec.EngineFasthttp, "http1", ""},
		{"fasthttp/http1/relative", exec.EngineFasthttp, "http1", "?rel=1&code=307"},
	} {
		t.Run(c.name, func(t *testing.T) {
			srv.ResetStats()
			got := applyRedirects(t, fmt.Sprintf(`
target "t" {
  url       = "http://%s"
  protocol  = %q
  timeout   = "30s"
  redirects = 5
}
endpoint "chain" {
  path = "/redirect/3%s"
  expect {
    status = [200]
  }
}
`+redirectLoad, addr, c.protocol, c.query), "--engine", c.engine)
			if got.rows["200 "] != 10 || len(got.rows) != 1 {
				t.Errorf("rows %v, want 10 × 200", got.rows)
			}
			if got.redirects["chain"] != 30 {
				t.Errorf("meta.json redirects %v, want chain: 30", got.redirects)
			}
			if n := srv.Stats().Routes["redirect"]; n != 40 {
				t.Errorf("the target answered %d requests, want 40 (10 rows × 4 hops)", n)
			}
		})
	}
}

// Past its redirects a chain ends on the redirect it did not follow: its
// row keeps that 302 with too_many_redirects, and counts as failed.
func TestRedirectTooMany(t *testing.T) {
	srv, addr, err := testserver.StartLoopback(t)
	if err != nil {
		t.Fatal(err)
	}
	for _, engine := range []string{exec.EngineLoop, exec.EngineFasthttp} {
		t.Run(engine, func(t *testing.T) {
			srv.ResetStats()
			got := applyRedirects(t, fmt.Sprintf(`
target "t" {
  url     = "http://%s"
  timeout = "30s"
}
endpoint "loop" {
  path      = "/redirect/5"
  redirects = 2
}
`+redirectLoad, addr), "--engine", engine)
			if got.rows["302 too_many_redirects"] != 10 || len(got.rows) != 1 {
				t.Errorf("rows %v, want 10 × 302 too_many_redirects", got.rows)
			}
			if n := srv.Stats().Routes["redirect"]; n != 30 {
				t.Errorf("the target answered %d requests, want 30 (10 rows × 3 hops)", n)
			}
		})
	}
}

// 303 turns a POST into a GET without its body; 307 keeps both; 302 after
// a POST becomes a GET as browsers do.
func TestRedirectMethodAndBody(t *testing.T) {
	srv, addr := startTarget(t, testserver.Options{LogRequests: true})
	for _, engine := range []string{exec.EngineLoop, exec.EngineFasthttp} {
		for _, c := range []struct {
			code, method, body string
		}{
			{"303", "GET", ""},
			{"302", "GET", ""},
			{"307", "POST", `{"a":1}`},
			{"308", "POST", `{"a":1}`},
		} {
			t.Run(engine+"/"+c.code, func(t *testing.T) {
				before := len(srv.Requests())
				got := applyRedirects(t, fmt.Sprintf(`
target "t" {
  url     = "http://%s"
  timeout = "30s"
}
endpoint "post" {
  method    = "POST"
  path      = "/redirect/1?code=%s&to=/echo"
  headers   = { "Content-Type" = "application/json" }
  body      = jsonencode({ a = 1 })
  redirects = 1
}
load {
  stage {
    duration = "100ms"
    rate     = 10
  }
}
`, addr, c.code), "--engine", engine)
				if got.rows["200 "] != 1 {
					t.Fatalf("rows %v, want one 200", got.rows)
				}
				reqs := srv.Requests()[before:]
				if len(reqs) != 2 {
					t.Fatalf("the target saw %d requests, want 2", len(reqs))
				}
				hop := reqs[1]
				if reqs[0].Method != "POST" || hop.Method != c.method || hop.URI != "/echo" || hop.Body != c.body {
					t.Errorf("hops %s %s, then %s %s %q; want POST, then %s /echo %q", reqs[0].Method, reqs[0].URI, hop.Method, hop.URI, hop.Body, c.method, c.body)
				}
				if _, typed := hop.Headers["Content-Type"]; typed != (c.body != "") {
					t.Errorf("the hop's Content-Type: %v, want it only with a body", hop.Headers["Content-Type"])
				}
			})
		}
	}
}

// A hop to another origin of the plan goes there without the first
// origin's credentials and cookies; a hop to an origin the plan does not
// name is refused, never sent.
func TestRedirectCrossOrigin(t *testing.T) {
	first, firstAddr := startTarget(t, testserver.Options{LogRequests: true})
	second, secondAddr := startTarget(t, testserver.Options{LogRequests: true})
	_, outsideAddr := startTarget(t, testserver.Options{LogRequests: true})
	plan := func(to string) string {
		return fmt.Sprintf(`
variable "password" {
  type      = string
  default   = "s3cret"
  sensitive = true
}
target "first" {
  url     = "http://%s"
  timeout = "30s"
}
target "second" {
  url = "http://%s"
}
endpoint "away" {
  target     = "first"
  path       = "/redirect/1?to=%s"
  headers    = { "Cookie" = "plan=1", "X-Trace" = "t1" }
  basic_auth = { username = "alice", password = var.password }
  redirects  = 3
}
load {
  stage {
    duration = "100ms"
    rate     = 10
  }
}
thresholds {
  allow_all_failed = true
}
`, firstAddr, secondAddr, to)
	}
	for _, engine := range []string{exec.EngineLoop, exec.EngineFasthttp} {
		t.Run(engine, func(t *testing.T) {
			f0, s0 := len(first.Requests()), len(second.Requests())
			got := applyRedirects(t, plan("http://"+secondAddr+"/echo"), "--engine", engine)
			if got.rows["200 "] != 1 {
				t.Fatalf("rows %v, want one 200", got.rows)
			}
			fr, sr := first.Requests()[f0:], second.Requests()[s0:]
			if len(fr) != 1 || len(sr) != 1 {
				t.Fatalf("the first target saw %d requests, the second %d; want 1 each", len(fr), len(sr))
			}
			if fr[0].Headers["Authorization"] == nil || fr[0].Headers["Cookie"] == nil {
				t.Errorf("the first hop lacks its credentials: %v", fr[0].Headers)
			}
			for _, h := range []string{"Authorization", "Cookie"} {
				if v := sr[0].Headers[h]; v != nil {
					t.Errorf("the hop to the second origin carried %s: %v", h, v)
				}
			}
			if sr[0].Headers["X-Trace"] == nil || !strings.HasPrefix(strings.Join(sr[0].Headers["Host"], ""), strings.Split(secondAddr, ":")[0]) {
				t.Errorf("the hop to the second origin: %v", sr[0].Headers)
			}

			got = applyRedirects(t, plan("http://"+outsideAddr+"/echo"), "--engine", engine)
			if got.rows["302 redirect_refused"] != 1 || len(got.rows) != 1 {
				t.Errorf("rows %v, want one 302 redirect_refused", got.rows)
			}
		})
	}
}

// Plans that follow no redirect keep their schedule hash: redirects = 0
// is the default and hashes as before.
func TestRedirectsZeroKeepsTheHash(t *testing.T) {
	base := `
target "t" {
  url = "http://127.0.0.1:1"
}
endpoint "e" {
  path = "/"
}
load {
  stage {
    duration = "1s"
    rate     = 1
  }
}
`
	hash := func(src string) string {
		code, out, errs := run(t, nil, "plan", writePlan(t, src))
		if code != ExitOK {
			t.Fatalf("exit %d: %s", code, errs)
		}
		for _, line := range strings.Split(out, "\n") {
			if strings.Contains(line, "schedule") {
				return line
			}
		}
		t.Fatalf("no hash in:\n%s", out)
		return ""
	}
	plain := hash(base)
	if zero := hash(strings.Replace(base, `path = "/"`, "path = \"/\"\n  redirects = 0", 1)); zero != plain {
		t.Errorf("redirects = 0 changed the hash: %s, was %s", zero, plain)
	}
	if three := hash(strings.Replace(base, `path = "/"`, "path = \"/\"\n  redirects = 3", 1)); three == plain {
		t.Errorf("redirects = 3 kept the hash %s", plain)
	}
}
