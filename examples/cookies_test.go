package examples_test

import (
	"path/filepath"
	"testing"

	"github.com/tressi/tressi/compile"
	"github.com/tressi/tressi/exec"
	"github.com/tressi/tressi/plan"
	"github.com/tressi/tressi/testserver"
)

// The cookie login example, cut down to 300 sessions in 1.5 s, on both
// engines: every authenticated request is ok, and the target saw one
// session cookie per session, each carried by exactly that session's
// requests. (bench/cookies runs the full 1,000 sessions/s for 10 s.)
func TestCookieExampleOneCookiePerSession(t *testing.T) {
	for _, engine := range []string{exec.EngineLoop, exec.EngineFasthttp} {
		t.Run(engine, func(t *testing.T) {
			srv, addr, err := testserver.StartLoopback(t)
			if err != nil {
				t.Fatal(err)
			}
			vars := []plan.VarArg{{Value: "base_url=http://" + addr}, {Value: "rate=200"}, {Value: "duration=1500ms"}, {Value: "calls=3"},
				// A busy machine may take seconds to answer; this test counts
				// cookies, not latency.
				{Value: "timeout=60s"}}
			p, _, diags := plan.Load(plan.Options{Path: "cookies.hcl", Vars: vars})
			if diags.HasErrors() {
				t.Fatal(diags)
			}
			s, diags := compile.Compile(p)
			if diags.HasErrors() {
				t.Fatal(diags)
			}
			out, err := exec.Run(t.Context(), s, exec.Options{OutDir: filepath.Join(t.TempDir(), "run"), Engine: engine})
			if err != nil {
				t.Fatal(err)
			}
			const sessions = 300
			if out.Requests != 4*sessions || out.OK != out.Requests {
				t.Fatalf("%d requests, %d ok, want %d all ok", out.Requests, out.OK, 4*sessions)
			}
			want := testserver.CookieStats{Logins: sessions, Sessions: sessions, Requests: 3 * sessions, MinUses: 3, MaxUses: 3}
			if got := srv.Stats().Cookies; got != want {
				t.Fatalf("the target counted %+v, want %+v", got, want)
			}
		})
	}
}
