package exec

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/valyala/fasthttp"
)

// Requests that wait for a connection are told apart from a generator
// falling behind: 20 closed users on 2 connections to a server answering
// in 20 ms wait for each other, and the live line says they waited for a
// connection (not "behind schedule"), and meta.json counts them; with a
// connection per user nothing waits.
func TestConnectionWaitsAreNotTheGeneratorFallingBehind(t *testing.T) {
	srv := serve(t, func(ctx *fasthttp.RequestCtx) {
		time.Sleep(20 * time.Millisecond)
		ctx.SetBodyString("ok")
	})
	plan := func(conns int) string {
		return fmt.Sprintf(`
target "t" {
  url         = "http://%s"
  connections = %d
  timeout     = "30s"
}
endpoint "e" {}
load {
  model = "closed"
  stage {
    duration = "1500ms"
    users    = 20
  }
}
`, srv.addr, conns)
	}
	for _, tc := range []struct {
		conns int
		waits bool
	}{{2, true}, {20, false}} {
		t.Run(fmt.Sprint(tc.conns, " connections"), func(t *testing.T) {
			s := compilePlan(t, plan(tc.conns), nil)
			var progress bytes.Buffer
			dir := filepath.Join(t.TempDir(), "run")
			if _, err := Run(context.Background(), s, Options{OutDir: dir, Progress: &progress, Terminal: true, Engine: EngineLoop}); err != nil {
				t.Fatal(err)
			}
			b, err := os.ReadFile(filepath.Join(dir, MetaFile))
			if err != nil {
				t.Fatal(err)
			}
			var meta struct {
				ConnectionWaits int64 `json:"connection_waits"`
			}
			if err := json.Unmarshal(b, &meta); err != nil {
				t.Fatal(err)
			}
			if got := meta.ConnectionWaits > 0; got != tc.waits {
				t.Fatalf("meta.json connection_waits %d, want waits: %v", meta.ConnectionWaits, tc.waits)
			}
			if tc.waits && !strings.Contains(progress.String(), "waited for a connection") {
				t.Fatalf("the live line never said requests waited for a connection:\n%q", progress.String())
			}
			if strings.Contains(progress.String(), "behind schedule") && tc.waits {
				t.Fatalf("the live line blames the generator for connection waits:\n%q", progress.String())
			}
		})
	}
}
