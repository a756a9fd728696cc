package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	osexec "os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

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
	// A loaded machine can fail Chromium's first load of the page (its
	// virtual time runs out on a slow answer): it tries again while the
	// page lingers, the first try being mid-run.
	var dom []byte
	var chromeErr bytes.Buffer
	for try := 0; try < 3; try++ {
		chromeErr.Reset()
		cmd := osexec.Command(chromium, "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
			"--disable-component-update", "--disable-sync", "--no-first-run", "--user-data-dir="+t.TempDir(),
			"--virtual-time-budget=15000", "--dump-dom", url)
		cmd.Stderr = &chromeErr
		if dom, err = cmd.Output(); err != nil {
			t.Fatalf("chromium: %v\n%s", err, chromeErr.String())
		}
		if !strings.Contains(string(dom), `class="neterror"`) {
			break
		}
	}
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
	page := string(dom)
	if !strings.Contains(page, `data-live-rendered="true"`) || !strings.Contains(page, `data-state="ended"`) {
		t.Fatalf("the page did not draw the run's end (%s); chromium said:\n%s", regexp.MustCompile(`<body[^>]*>`).FindString(page), chromeErr.String())
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

// A capacity search is not watched yet: the flags say so instead of
// being ignored.
func TestLiveFlagsRefuseASearch(t *testing.T) {
	code, _, stderr := run(t, nil, "apply", "../examples/capacity.hcl", "--dashboard=:0", "-q", "-o", filepath.Join(t.TempDir(), "s"))
	if code != ExitInvalid || !strings.Contains(stderr, "do not watch a capacity search yet") {
		t.Fatalf("exit %d, stderr:\n%s", code, stderr)
	}
}
