package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	osexec "os/exec"
	"os/signal"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tressi/tressi/internal/live"
	"github.com/tressi/tressi/search"
	"github.com/tressi/tressi/testserver"
)

// lockedBuffer is a stderr the test reads while the command still writes.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// livePlan is a few seconds of load on the built-in target at addr, with
// ok answers and 404s an endpoint does not expect.
func livePlan(t *testing.T, addr string, seconds float64, extra ...string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "live.hcl")
	src := fmt.Sprintf(`
target "local" {
  url = "http://%s"
}
endpoint "home" {
  path   = "/"
  weight = 2
}
endpoint "missing" {
  path = "/status/404"
}
load {
  model = "open"
  seed  = 2
  stage {
    duration = "%gs"
    rate     = 200
  }
}
%s
`, addr, seconds, strings.Join(extra, "\n"))
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// applyLive runs apply in the background; the returned function waits for
// it and returns its exit code and stdout.
func applyLive(t *testing.T, args ...string) (stderr *lockedBuffer, wait func() (int, string)) {
	stderr = &lockedBuffer{}
	var out bytes.Buffer
	done := make(chan int, 1)
	go func() { done <- Main(append([]string{"apply"}, args...), nil, strings.NewReader(""), &out, stderr) }()
	return stderr, func() (int, string) {
		select {
		case code := <-done:
			return code, out.String()
		case <-time.After(2 * time.Minute):
			t.Fatalf("apply did not end; stderr:\n%s", stderr.String())
			return 0, ""
		}
	}
}

var dashboardURL = regexp.MustCompile(`Dashboard: (http://127\.0\.0\.1:\d+/)`)

// waitForURL waits until stderr names the dashboard's URL.
func waitForURL(t *testing.T, stderr *lockedBuffer) string {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if m := dashboardURL.FindStringSubmatch(stderr.String()); m != nil {
			return m[1]
		}
	}
	t.Fatalf("no dashboard URL on stderr:\n%s", stderr.String())
	return ""
}

// The dashboard page, opened in headless Chromium in the middle of a run,
// draws its charts from the history it is sent and the updates after,
// and its totals at the end are the report's.
func TestDashboardInChromium(t *testing.T) {
	chromium, err := osexec.LookPath("chromium")
	if err != nil {
		t.Skip("chromium is not on PATH (CI installs it)")
	}
	_, addr, err := testserver.StartLoopback(t)
	if err != nil {
		t.Fatal(err)
	}
	// The linger keeps the page up should a busy machine start Chromium
	// late, or need it to try again.
	// The 404s fail status_codes live (abort = false: the run goes on); p99
	// is judged only at the end.
	plan := livePlan(t, addr, 5, "thresholds {\n  status_codes = [404]\n  abort = false\n  p99 = \"10s\"\n}")
	stderr, wait := applyLive(t, plan, "--dashboard=:0", "--dashboard-linger=15s", "--json", "-o", filepath.Join(t.TempDir(), "run"))
	url := waitForURL(t, stderr)
	time.Sleep(1500 * time.Millisecond) // mid-run
	dom, chromeErr := dashboardDOM(t, chromium, url)
	endLinger(t)
	code, out := wait()
	if code != ExitThresholds { // status_codes failed
		t.Fatalf("apply exit %d; stderr:\n%s", code, stderr.String())
	}
	var rep struct {
		Requests, OK, Errors int64
		Endpoints            []struct {
			Name                 string
			Requests, OK, Errors int64
		}
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("apply --json: %v\n%s", err, out)
	}
	page := dom
	if !strings.Contains(page, `data-live-rendered="true"`) || !strings.Contains(page, `data-state="ended"`) {
		t.Fatalf("the page did not draw the run's end (%s); chromium said:\n%s", regexp.MustCompile(`<body[^>]*>`).FindString(page), chromeErr)
	}
	for _, chart := range []string{"rate", "latency", "service", "errors", "sendlag"} {
		m := regexp.MustCompile(`data-chart="` + chart + `"[^>]*data-points="(\d+)"`).FindStringSubmatch(page)
		if m == nil || m[1] == "0" {
			t.Errorf("chart %s drew no points (%v)", chart, m)
		}
	}
	for id, want := range map[string]int64{"t-requests": rep.Requests, "t-ok": rep.OK, "t-errors": rep.Errors} {
		m := regexp.MustCompile(`id="` + id + `">(\d+)<`).FindStringSubmatch(page)
		if m == nil || m[1] != strconv.FormatInt(want, 10) {
			t.Errorf("page %s = %v, report %d", id, m, want)
		}
	}
	if rep.Errors == 0 || rep.OK == 0 {
		t.Fatalf("the plan meant ok requests and 404s: %+v", rep)
	}
	for _, want := range []string{`<tr data-threshold="status_codes" data-state="failed" style="color: rgb(204, 0, 0);"><td>status_codes</td><td>[404]</td><td>live</td><td>failed: got status 404</td>`,
		`<tr data-threshold="p99" data-state="end"><td>p99</td><td>10s</td><td>at the end</td>`} {
		if !strings.Contains(page, want) {
			t.Errorf("the page's thresholds lack %s", want)
		}
	}
	for _, e := range rep.Endpoints {
		row := fmt.Sprintf(`<tr data-endpoint="%s"><td>%s</td><td>%d</td><td>%d</td><td>%d</td>`, e.Name, e.Name, e.Requests, e.OK, e.Errors)
		if !strings.Contains(page, row) {
			t.Errorf("the page's table lacks %s", row)
		}
	}
}

// endLinger ends the linger of the apply running in this process, as a
// user's Ctrl-C does, once the test read what it wanted from the page: the
// linger is long only for a busy machine's slow Chromium. The test's own
// handler keeps the signal from ending the test binary should the apply
// have ended already.
func endLinger(t *testing.T) {
	t.Helper()
	seen := make(chan os.Signal, 1)
	signal.Notify(seen, os.Interrupt)
	defer signal.Stop(seen)
	self, err := os.FindProcess(os.Getpid())
	if err == nil {
		err = self.Signal(os.Interrupt)
	}
	if err != nil {
		t.Fatalf("interrupting the linger: %v", err)
	}
	select {
	case <-seen:
	case <-time.After(10 * time.Second):
		t.Fatal("SIGINT was not delivered")
	}
}

// dashboardDOM opens the dashboard at url in headless Chromium and returns
// the page as drawn once the run ended (or the virtual time ran out), and
// what Chromium said.
func dashboardDOM(t *testing.T, chromium, url string) (dom, stderr string) {
	t.Helper()
	// A loaded machine can fail Chromium's first load of the page (its
	// virtual time runs out on a slow answer): it tries again while the
	// page lingers.
	var chromeErr bytes.Buffer
	for try := 0; try < 3; try++ {
		chromeErr.Reset()
		cmd := osexec.Command(chromium, "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
			"--disable-component-update", "--disable-sync", "--no-first-run", "--user-data-dir="+t.TempDir(),
			"--virtual-time-budget=15000", "--dump-dom", url)
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &chromeErr
		err := startOnNormalThread(cmd)
		if err == nil {
			err = cmd.Wait()
		}
		if err != nil && crashed(err) && try < 2 {
			t.Logf("chromium crashed (%v); starting it again", err) // it does now and then on a busy machine
			continue
		}
		if err != nil {
			t.Fatalf("chromium: %v\n%s", err, chromeErr.String())
		}
		if dom = out.String(); !strings.Contains(dom, `class="neterror"`) {
			break
		}
	}
	return dom, chromeErr.String()
}

// A dashboard binds loopback unless told otherwise, and says so when told.
func TestDashboardAddresses(t *testing.T) {
	_, addr, err := testserver.StartLoopback(t)
	if err != nil {
		t.Fatal(err)
	}
	code, _, stderr := run(t, nil, "apply", livePlan(t, addr, 0.2), "--dashboard=nonsense", "-q", "-o", filepath.Join(t.TempDir(), "a"))
	if code != ExitInvalid || !strings.Contains(stderr, "--dashboard: address \"nonsense\": want HOST:PORT") {
		t.Fatalf("exit %d, stderr:\n%s", code, stderr)
	}
	code, _, stderr = run(t, nil, "apply", livePlan(t, addr, 0.2), "--dashboard=0.0.0.0:0", "-q", "-o", filepath.Join(t.TempDir(), "b"))
	if code != 0 || !strings.Contains(stderr, "Warning: --dashboard 0.0.0.0 is not a loopback address") {
		t.Fatalf("exit %d, stderr:\n%s", code, stderr)
	}
}

// A capacity search is watched as it runs: /metrics says the value of the
// probe running, /state lists the probes judged and the one running, and
// at the end the page's probe table is the search's record.
func TestDashboardOfASearch(t *testing.T) {
	_, addr, err := testserver.StartLoopback(t)
	if err != nil {
		t.Fatal(err)
	}
	// The linger outlasts a busy machine's slow start of Chromium (CI's
	// other packages test beside it), and its tries again.
	stderr, wait := applyLive(t, "testdata/search/search.hcl", "-var", "base_url=http://"+addr, "--dashboard=:0", "--metrics=127.0.0.1:0",
		"--dashboard-linger=20s", "--json", "-o", filepath.Join(t.TempDir(), "run"))
	url := waitForURL(t, stderr)
	metricsURL := regexp.MustCompile(`Metrics: (http://\S+/metrics)`).FindStringSubmatch(stderr.String())
	if metricsURL == nil {
		t.Fatalf("no metrics URL on stderr:\n%s", stderr.String())
	}
	// Mid-search: a probe is running, at a value of the ladder.
	probeRate := regexp.MustCompile(`(?m)^tressi_search_probe_rate\{[^}]*\} (\S+)$`)
	var running, scraped string
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline) && (running == "" || scraped == ""); time.Sleep(50 * time.Millisecond) {
		if m := probeRate.FindStringSubmatch(get(t, metricsURL[1])); m != nil && m[1] != "0" {
			scraped = m[1]
		}
		var state struct{ Run live.RunInfo }
		if err := json.Unmarshal([]byte(get(t, url+"state")), &state); err != nil {
			t.Fatal(err)
		}
		if s := state.Run.Search; s != nil && len(s.Probes) > 0 && s.Probes[len(s.Probes)-1].Verdict == search.VerdictRunning {
			running = strconv.FormatFloat(s.Probes[len(s.Probes)-1].Offered, 'g', -1, 64)
		}
	}
	ladder := []string{"40", "80", "160", "320"} // from 40 to 320, ×2: the values probed first
	if !slices.Contains(ladder, running) || scraped == "" {
		t.Fatalf("mid-search: a running probe at %q in /state, tressi_search_probe_rate %q; stderr:\n%s", running, scraped, stderr.String())
	}
	// The end: the last update holds every probe's verdict.
	var state struct{ Run live.RunInfo }
	for deadline := time.Now().Add(time.Minute); state.Run.State != live.StateEnded; time.Sleep(100 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the search did not end; stderr:\n%s", stderr.String())
		}
		if err := json.Unmarshal([]byte(get(t, url+"state")), &state); err != nil {
			t.Fatal(err)
		}
	}
	var dom string
	if chromium, err := osexec.LookPath("chromium"); err == nil {
		var chromeErr string
		dom, chromeErr = dashboardDOM(t, chromium, url) // while the page lingers
		if !strings.Contains(dom, `data-state="ended"`) {
			t.Fatalf("the page did not draw the search's end (%s); chromium said:\n%s", regexp.MustCompile(`<body[^>]*>`).FindString(dom), chromeErr)
		}
	}
	endLinger(t)
	code, out := wait()
	if code != ExitOK && code != ExitThresholds {
		t.Fatalf("apply exit %d; stderr:\n%s", code, stderr.String())
	}
	var rec struct{ Search search.Record }
	if err := json.Unmarshal([]byte(out), &rec); err != nil || len(rec.Search.Probes) == 0 || state.Run.Search == nil {
		t.Fatalf("apply --json: %v\n%s\nlive: %+v", err, out, state.Run)
	}
	got := state.Run.Search.Probes
	if len(got) != len(rec.Search.Probes) {
		t.Fatalf("live table %d probes, search.json %d", len(got), len(rec.Search.Probes))
	}
	for i, want := range rec.Search.Probes {
		g := got[i]
		if g.Index != want.Index || g.Offered != want.Offered || g.Verdict != want.Verdict || g.Requests != want.Requests ||
			g.P99Ms != want.P99Ms || g.ErrorRate != want.ErrorRate {
			t.Errorf("probe %d: live %+v\nsearch %+v", i+1, g, want)
		}
		row := fmt.Sprintf(`<tr data-probe="%d" data-verdict="%s"`, want.Index, want.Verdict)
		if dom != "" && !strings.Contains(dom, row) {
			t.Errorf("the page's probe table lacks %s", row)
		}
	}
}
