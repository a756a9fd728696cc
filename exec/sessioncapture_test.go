package exec

import (
	"fmt"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tressi/tressi/results"
	"github.com/valyala/fasthttp"
)

// A step's captures follow the one success rule, a row's: they are taken
// from a response whose status the step expects (its expect, default
// 200–399), not from any 2xx/3xx. With expect = [401], the refused login
// captures and the accepted one does not, on both engines.
func TestSessionCapturesFollowExpect(t *testing.T) { forEngines(t, testSessionCapturesFollowExpect) }

func testSessionCapturesFollowExpect(t *testing.T, engine string) {
	a := serveAuth(t)
	src := fmt.Sprintf(loginPlan, a.addr, 8, "pool", "sequential", 20)
	src = strings.Replace(src, `capture = { token = json("token") }`,
		`capture = { token = regex("\"(\\w+)\":") }
    expect { status = [401] }`, 1)
	s := compilePlan(t, src, map[string]string{"users.csv": usersCSV})
	dir := filepath.Join(t.TempDir(), "run")
	if _, err := Run(t.Context(), s, Options{OutDir: dir, Engine: engine}); err != nil {
		t.Fatal(err)
	}
	bySlot, _ := sessionRows(t, dir)
	if len(bySlot) != 10 {
		t.Fatalf("%d sessions, want 10", len(bySlot))
	}
	for k, rows := range bySlot {
		nobody := k%5 == 4
		if len(rows) != 4 {
			t.Fatalf("slot %d: %d rows: %+v", k, len(rows), rows)
		}
		for _, r := range rows[1:] {
			if nobody && (r.Error != results.None || r.Status != 200) {
				t.Errorf("slot %d (nobody, 401 expected): %+v, want /me sent with the captured key", k, r)
			}
			if !nobody && (r.Error != results.CaptureFailed || r.Sent != -1) {
				t.Errorf("slot %d (200, not expected): %+v, want capture_failed", k, r)
			}
		}
	}
	if got := a.me.Load(); got != 2*3 {
		t.Errorf("server saw %d /me, want 6 (the two refused logins' sessions)", got)
	}
}

// A repeat that gets no response leaves its step's captures missing, even
// when an earlier repeat captured them: the next step is capture_failed,
// on both engines (the loop kept the earlier value).
func TestSessionCaptureMissingAfterFailedRepeat(t *testing.T) {
	forEngines(t, testSessionCaptureMissingAfterFailedRepeat)
}

func testSessionCaptureMissingAfterFailedRepeat(t *testing.T, engine string) {
	var logins, me atomic.Int64
	srv := serve(t, func(ctx *fasthttp.RequestCtx) {
		switch string(ctx.Path()) {
		case "/login":
			if logins.Add(1)%2 == 0 {
				time.Sleep(600 * time.Millisecond) // past the target's timeout
			}
			ctx.SetBodyString(`{"token":"t"}`)
		default:
			me.Add(1)
		}
	})
	src := fmt.Sprintf(`
target "api" {
  url         = "http://%s"
  connections = 1
  timeout     = "200ms"
}
scenario "journey" {
  step "login" {
    path    = "/login"
    capture = { token = json("token") }
    repeat  = 2
  }
  step "me" {
    path    = "/me"
    headers = { Authorization = "Bearer ${captured.token}" }
  }
}
load {
  stage {
    duration = "1s"
    rate     = 1
  }
}
`, srv.addr)
	s := compilePlan(t, src, nil)
	dir := filepath.Join(t.TempDir(), "run")
	if _, err := Run(t.Context(), s, Options{OutDir: dir, Engine: engine}); err != nil {
		t.Fatal(err)
	}
	bySlot, _ := sessionRows(t, dir)
	rows := bySlot[0]
	if len(bySlot) != 1 || len(rows) != 3 {
		t.Fatalf("sessions %+v, want one of 3 rows", bySlot)
	}
	if rows[0].Error != results.None || rows[1].Error != results.Timeout {
		t.Fatalf("logins %+v, %+v: want ok, then timeout", rows[0], rows[1])
	}
	if rows[2].Error != results.CaptureFailed || me.Load() != 0 {
		t.Fatalf("me %+v (server saw %d): want capture_failed, never sent", rows[2], me.Load())
	}
}
