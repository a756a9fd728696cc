package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	osexec "os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tressi/tressi/testserver"
)

// prometheus is a real Prometheus (Debian's package) on loopback,
// receiving remote writes, with its storage in a temporary directory.
type prometheus struct {
	t          *testing.T
	bin, addr  string
	dir, store string
	cmd        *osexec.Cmd
}

func startPrometheus(t *testing.T) *prometheus {
	bin, err := osexec.LookPath("prometheus")
	if err != nil {
		t.Skip("prometheus is not on PATH (CI installs Debian's prometheus package)")
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "prometheus.yml"), []byte("global:\n  scrape_interval: 15s\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	p := &prometheus{t: t, bin: bin, addr: addr, dir: dir, store: filepath.Join(dir, "data")}
	p.start()
	t.Cleanup(p.stop)
	return p
}

func (p *prometheus) start() {
	p.cmd = osexec.Command(p.bin, "--config.file="+filepath.Join(p.dir, "prometheus.yml"), "--storage.tsdb.path="+p.store,
		"--web.listen-address="+p.addr, "--web.enable-remote-write-receiver")
	log, err := os.OpenFile(filepath.Join(p.dir, "log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		p.t.Fatal(err)
	}
	p.cmd.Stdout, p.cmd.Stderr = log, log
	if err := p.cmd.Start(); err != nil {
		p.t.Fatal(err)
	}
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if resp, err := http.Get("http://" + p.addr + "/-/ready"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == 200 {
				return
			}
		}
	}
	b, _ := os.ReadFile(filepath.Join(p.dir, "log"))
	p.t.Fatalf("prometheus did not get ready:\n%s", b)
}

func (p *prometheus) stop() {
	if p.cmd == nil || p.cmd.Process == nil {
		return
	}
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	done := make(chan struct{})
	go func() { _ = p.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		_ = p.cmd.Process.Kill()
		<-done
	}
	p.cmd = nil
}

// query runs an instant PromQL query and returns each result's labels and value.
func (p *prometheus) query(q string) []promResult {
	p.t.Helper()
	resp, err := http.Get("http://" + p.addr + "/api/v1/query?query=" + url.QueryEscape(q))
	if err != nil {
		p.t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	var r struct {
		Status string
		Data   struct {
			Result []struct {
				Metric map[string]string
				Value  [2]any
			}
		}
	}
	if err := json.Unmarshal(body, &r); err != nil || r.Status != "success" {
		p.t.Fatalf("query %s: %v\n%s", q, err, body)
	}
	var out []promResult
	for _, x := range r.Data.Result {
		out = append(out, promResult{x.Metric, fmt.Sprint(x.Value[1])})
	}
	return out
}

type promResult struct {
	labels map[string]string
	value  string
}

// After a run that pushed by remote write, and whose Prometheus was down
// for 10 s in the middle of it, sum(tressi_requests_total) by endpoint and
// status equals the report's, and the series ended with stale markers.
func TestRemoteWriteToPrometheus(t *testing.T) {
	prom := startPrometheus(t)
	_, addr, err := testserver.StartLoopback(t)
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "run")
	stderr, wait := applyLive(t, livePlan(t, addr, 16), "--json", "-o", dir,
		"--remote-write=http://"+prom.addr+"/api/v1/write", "--remote-write-header=Authorization: Bearer s3cret")
	time.Sleep(3 * time.Second)
	prom.stop()
	time.Sleep(10 * time.Second)
	prom.start()
	code, out := wait()
	if code != 0 {
		t.Fatalf("apply exit %d; stderr:\n%s", code, stderr.String())
	}
	var rep struct {
		Requests int64
		Run      struct {
			RunID string `json:"run_id"`
		}
		Endpoints []struct {
			Name   string
			Status map[string]int64
		}
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{}
	for _, e := range rep.Endpoints {
		for st, n := range e.Status {
			want[e.Name+" "+st] = fmt.Sprint(n)
		}
	}
	got := map[string]string{}
	sel := fmt.Sprintf(`tressi_requests_total{run_id=%q, plan="live", shard="0/1"}`, rep.Run.RunID)
	for _, r := range prom.query(`sum by (endpoint, status) (last_over_time(` + sel + `[1h]))`) {
		got[r.labels["endpoint"]+" "+r.labels["status"]] = r.value
	}
	if fmt.Sprint(got) != fmt.Sprint(want) || len(want) < 2 {
		t.Fatalf("prometheus has %v, the report %v", got, want)
	}
	// Every query of the Grafana dashboard is PromQL this Prometheus takes.
	var dash struct {
		Panels []struct{ Targets []struct{ Expr string } }
	}
	b, err := os.ReadFile("../examples/grafana/tressi-live.json")
	if err != nil || json.Unmarshal(b, &dash) != nil {
		t.Fatalf("reading the Grafana dashboard: %v", err)
	}
	vars := strings.NewReplacer("$plan", "live", "$run_id", rep.Run.RunID, "$__rate_interval", "1m")
	for _, p := range dash.Panels {
		for _, tg := range p.Targets {
			prom.query(vars.Replace(tg.Expr)) // fails the test unless Prometheus says success
		}
	}
	if now := prom.query(sel); len(now) != 0 {
		t.Errorf("the series did not end with stale markers: %v", now)
	}
	if strings.Contains(stderr.String(), "s3cret") {
		t.Errorf("stderr shows the header's value:\n%s", stderr.String())
	}
	meta, err := os.ReadFile(filepath.Join(dir, "meta.json"))
	if err != nil || strings.Contains(string(meta), "s3cret") || !strings.Contains(string(meta), "--remote-write-header=(sensitive)") {
		t.Errorf("meta.json must name the header, never its value: %v\n%s", err, meta)
	}
}

var metricsURL = regexp.MustCompile(`Metrics: (http://127\.0\.0\.1:\d+/metrics)`)

var requestsLine = regexp.MustCompile(`(?m)^tressi_requests_total\{([^}]*)\} (\d+)$`)

// /metrics, scraped to the end of the linger, counts what the report
// counts, with the run's labels on every series.
func TestMetricsScrape(t *testing.T) {
	_, addr, err := testserver.StartLoopback(t)
	if err != nil {
		t.Fatal(err)
	}
	stderr, wait := applyLive(t, livePlan(t, addr, 2), "--json", "-o", filepath.Join(t.TempDir(), "run"),
		"--metrics=:0", "--dashboard-linger=1500ms")
	var endpoint string
	for deadline := time.Now().Add(30 * time.Second); endpoint == "" && time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if m := metricsURL.FindStringSubmatch(stderr.String()); m != nil {
			endpoint = m[1]
		}
	}
	var last string
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			resp, err := http.Get(endpoint)
			if err != nil {
				return // closed after the linger
			}
			b, err := io.ReadAll(resp.Body)
			resp.Body.Close()
			if err != nil {
				return // the linger ended in the middle of this scrape: it is cut short
			}
			last = string(b)
			time.Sleep(100 * time.Millisecond)
		}
	}()
	code, out := wait()
	<-done
	if code != 0 {
		t.Fatalf("exit %d:\n%s", code, stderr.String())
	}
	var rep struct {
		Endpoints []struct {
			Name   string
			Status map[string]int64
		}
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	want, got := map[string]string{}, map[string]int64{}
	for _, e := range rep.Endpoints {
		for st, n := range e.Status {
			want[e.Name+" "+st] = fmt.Sprint(n)
		}
	}
	for _, m := range requestsLine.FindAllStringSubmatch(last, -1) {
		labels := map[string]string{}
		for _, kv := range strings.Split(m[1], ",") {
			k, v, _ := strings.Cut(kv, "=")
			labels[k] = strings.Trim(v, `"`)
		}
		if labels["plan"] != "live" || labels["shard"] != "0/1" || len(labels["run_id"]) != 32 || labels["target"] != "local" {
			t.Fatalf("series labels %v", labels)
		}
		var n int64
		fmt.Sscan(m[2], &n)
		got[labels["endpoint"]+" "+labels["status"]] += n
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("/metrics counts %v, the report %v; last scrape:\n%.2000s", got, want, last)
	}
	for _, name := range []string{"tressi_request_duration_seconds_bucket", "tressi_service_duration_seconds_count",
		"tressi_send_lag_seconds", "tressi_open_connections", "tressi_offered_rate"} {
		if !strings.Contains(last, name) {
			t.Errorf("/metrics lacks %s", name)
		}
	}
}
