package examples_test

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	osexec "os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tressi/tressi/compile"
	"github.com/tressi/tressi/exec"
	"github.com/tressi/tressi/plan"
	"github.com/tressi/tressi/results"
)

// TestTinodeRealServer runs examples/tinode, unchanged, against a real
// Tinode server: v0.22.13 built from the Go module proxy with PostgreSQL
// from Debian, loaded with Tinode's sample data and generated load accounts
// (tinode/real-server.sh up). Opt-in (TRESSI_TINODE=1, .ci/run with
// TRESSI_CI_TINODE=1): the first run builds Tinode and fills its database,
// about two minutes on two cores before the tests' own minute and a half.
//
// Every session has exactly its scheduled rows; every reply is matched (no
// await_timeout, ws_closed, ws_protocol); every answer is the upgrade's
// 101, a 2xx ctrl or the close's 1000, but for the real server's refusals
// that end a session (403: the sample data's ban, dave banned bob; 503
// "locked" under contention), after which its rows are skipped; and a
// message published to the single topic reaches other sessions.
func TestTinodeRealServer(t *testing.T) {
	if os.Getenv("TRESSI_TINODE") != "1" {
		t.Skip("set TRESSI_TINODE=1 to run examples/tinode against a real Tinode server (tinode/real-server.sh builds it on loopback)")
	}
	run := t.TempDir()
	script := filepath.Join("tinode", "real-server.sh")
	up := osexec.Command("bash", script, "up", run)
	up.Env = append(os.Environ(), "LOAD_USERS=100")
	out, err := up.CombinedOutput()
	t.Cleanup(func() {
		if out, err := osexec.Command("bash", script, "down", run).CombinedOutput(); err != nil {
			t.Errorf("real-server.sh down: %v\n%s", err, out)
		}
	})
	var ee *osexec.ExitError
	if errors.As(err, &ee) && ee.ExitCode() == 3 {
		t.Skipf("a Tinode server cannot be set up here:\n%s", out)
	}
	if err != nil {
		t.Fatalf("real-server.sh up: %v\n%s", err, out)
	}
	env := readEnv(t, filepath.Join(run, "env"))

	for _, tc := range []struct {
		name, test, accounts string
		fanout               bool
	}{
		{"Loadtest/sample", "Loadtest", env["SAMPLE_ACCOUNTS"], false},
		{"Loadtest/load", "Loadtest", env["LOAD_ACCOUNTS"], false},
		{"MeLoadtest", "MeLoadtest", env["SAMPLE_ACCOUNTS"], false},
		{"SingleTopicLoadtest", "SingleTopicLoadtest", env["LOAD_ACCOUNTS"], true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			vars := []plan.VarArg{}
			for _, v := range []string{"base_url=" + env["BASE_URL"], "test=" + tc.test, "accounts=" + tc.accounts,
				"topic=" + env["TOPIC"], "num_sessions=60", "ramp=5", "pause_scale=0.2", "hold=2"} {
				vars = append(vars, plan.VarArg{Value: v})
			}
			p, _, diags := plan.Load(plan.Options{Path: "tinode", Vars: vars})
			if diags.HasErrors() {
				t.Fatal(diags)
			}
			s, diags := compile.Compile(p)
			if diags.HasErrors() {
				t.Fatal(diags)
			}
			dir := filepath.Join(t.TempDir(), "run")
			outcome, err := exec.Run(t.Context(), s, exec.Options{OutDir: dir})
			if err != nil {
				t.Fatal(err)
			}
			checkRealTinodeRun(t, s, dir, outcome, tc.fanout)
		})
	}
}

func checkRealTinodeRun(t *testing.T, s *compile.Schedule, dir string, outcome *exec.Outcome, fanout bool) {
	t.Helper()
	r, err := results.Open(filepath.Join(dir, exec.ResultsFile))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	perSlot := map[uint64]int64{}
	refused := map[uint64]bool{}
	tally := map[string]int{}
	for {
		b, ok := r.Next()
		if !ok {
			break
		}
		for i := 0; i < b.Len; i++ {
			name, errWord, status := b.EndpointNames[b.Endpoint[i]], b.ErrorNames[b.Error[i]], b.Status[i]
			k := b.Slot[i]
			perSlot[k]++
			switch {
			case errWord == "no_item", errWord == "skipped":
				tally[errWord]++
			case errWord != "":
				t.Errorf("slot %d %s: %s (a reply not matched)", k, name, errWord)
			case strings.HasSuffix(name, ".connect"):
				if status != 101 {
					t.Errorf("slot %d %s: status %d", k, name, status)
				}
			case strings.HasSuffix(name, ".close"):
				if status != 1000 {
					t.Errorf("slot %d %s: status %d", k, name, status)
				}
			case status == 403 || status == 503:
				refused[k] = true
				tally[fmt.Sprintf("%s %d", name, status)]++
			case status < 200 || status > 299:
				t.Errorf("slot %d %s: status %d", k, name, status)
			}
		}
	}
	if r.Err() != nil || r.Truncated != nil {
		t.Fatalf("reading results: %v / %v", r.Err(), r.Truncated)
	}
	if int64(len(perSlot)) != s.Count {
		t.Fatalf("%d sessions have rows, %d scheduled", len(perSlot), s.Count)
	}
	for k, n := range perSlot {
		if want := compile.SessionRows(&s.Entries[s.Pick(k)]); n != want {
			t.Errorf("slot %d: %d rows, its session schedules %d", k, n, want)
		}
	}
	sum, err := results.ReadWebSocketSummary(dir)
	if err != nil || sum == nil {
		t.Fatalf("websocket.json: %v", err)
	}
	if sum.Sessions.Connected != s.Count || sum.Sessions.Completed+int64(len(refused)) < s.Count {
		t.Errorf("sessions %+v: %d ended by a refusal", sum.Sessions, len(refused))
	}
	if fanout && sum.Fanout.Delivered == 0 {
		t.Errorf("no published message reached another session: %+v", sum.Fanout)
	}
	for _, th := range outcome.Thresholds {
		if !th.OK {
			t.Errorf("threshold %s failed: %+v", th.Name, th)
		}
	}
	t.Logf("%d sessions, %d requests, %d ok; %v; deliveries %d, unmatched frames %d",
		s.Count, outcome.Requests, outcome.OK, tally, sum.Fanout.Delivered, sum.Messages.Unmatched)
}

// readEnv reads the NAME=value lines real-server.sh up writes.
func readEnv(t *testing.T, path string) map[string]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	env := map[string]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if k, v, ok := strings.Cut(sc.Text(), "="); ok {
			env[k] = v
		}
	}
	for _, k := range []string{"BASE_URL", "TOPIC", "SAMPLE_ACCOUNTS", "LOAD_ACCOUNTS"} {
		if env[k] == "" {
			t.Fatalf("%s: no %s", path, k)
		}
	}
	return env
}
