package scaleout

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	osexec "os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/tressi/tressi/report"
	"github.com/tressi/tressi/results"
)

// The shards' exact container arguments, taken from kubernetes/shards-job.yaml
// and expanded as Kubernetes expands them, run as processes, each in its own
// network namespace, against the built-in target in another; the merge Job's
// arguments then merge them. The merged report must equal a single process
// running the whole schedule in requests, statuses, errors and bytes, and its
// percentiles must equal those of all the shards' rows taken as one run.
//
// The plan fails one request in five (its fifth, tenth, … slot), so each of
// the 4 shards holds 60 of the 240 errors: error_count = 100 passes on every
// shard and fails on the merge (exit 2). The single run raises max_errors,
// or its live threshold would stop it at the 101st error: thresholds are not
// part of the schedule, so it still runs (and --expect-hash proves it runs)
// the shards' schedule.

const netnsPlan = `
variable "base_url" {
  type = string
}
variable "token" {
  type      = string
  sensitive = true
}
variable "max_errors" {
  type    = number
  default = 100
}
target "t" {
  url         = var.base_url
  timeout     = "30s" # a busy machine's slow answer is not one of the counted errors
  connections = 1024
  headers = {
    Authorization = "Bearer ${var.token}"
  }
}
endpoint "ok" {
  path   = "/"
  weight = 4
}
endpoint "fail" {
  path   = "/status/500"
  weight = 1
}
load {
  stage {
    duration = "2s"
    rate     = 600
  }
}
thresholds {
  error_count = var.max_errors
}
`

const secretToken = "s3cret-scaleout-token"

func TestShardsInNetworkNamespacesMergeToTheWholeRun(t *testing.T) {
	if testing.Short() {
		t.Skip("builds tressi and runs 6 processes in network namespaces")
	}
	if os.Geteuid() != 0 {
		t.Skip("network namespaces need root (ip netns)")
	}
	if _, err := osexec.LookPath("ip"); err != nil {
		t.Skip("no ip command (Debian: apt-get install iproute2)")
	}
	sj := loadShardsJob(t)
	net := newNetwork(t, sj.shards+1) // the shards, then one for the whole run and the late shard
	bin := buildTressi(t)
	url := startTarget(t, bin, net)

	planDir, resultsDir := t.TempDir(), t.TempDir()
	if err := os.WriteFile(filepath.Join(planDir, "plan.hcl"), []byte(netnsPlan), 0o644); err != nil {
		t.Fatal(err)
	}
	// What the operator puts in the ConfigMaps and the Secret.
	vars := map[string]string{"base_url": url}
	secrets := map[string]string{"token": secretToken}
	planEnv := []string{"TRESSI_VAR_base_url=" + url, "TRESSI_VAR_token=" + secretToken}
	hash := planHash(t, bin, planEnv, planDir)
	start := time.Now().Add(4 * time.Second).UTC().Format(time.RFC3339Nano)
	runCM := map[string]string{"schedule-hash": hash, "start-at": start, "run": "r1"}
	mounts := map[string]string{"plan": planDir, "results": resultsDir}

	// The shards, all at once.
	type outcome struct {
		code           int
		stdout, stderr string
	}
	outs := make([]outcome, sj.shards)
	var wg sync.WaitGroup
	for i := 0; i < sj.shards; i++ {
		args, env := containerCommand(t, sj.container, i, runCM, vars, secrets, mounts)
		if i == 0 {
			t.Logf("shard 0 runs: tressi %s", strings.Join(args, " "))
		}
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			outs[i].code, outs[i].stdout, outs[i].stderr = runIn(t, net.client[i], bin, env, args...)
		}(i)
	}
	wg.Wait()
	shardDirs := make([]string, sj.shards)
	for i, o := range outs {
		if o.code != 0 {
			t.Fatalf("shard %d: exit %d (its 60 errors pass error_count = 100)\n%s", i, o.code, o.stderr)
		}
		shardDirs[i] = filepath.Join(resultsDir, "r1", fmt.Sprintf("shard-%d", i))
		logStart(t, shardDirs[i])
	}

	// A shard whose start has passed refuses to run.
	lateCM := map[string]string{"schedule-hash": hash, "start-at": time.Now().Add(-5 * time.Second).UTC().Format(time.RFC3339Nano), "run": "late"}
	args, env := containerCommand(t, sj.container, sj.shards-1, lateCM, vars, secrets, mounts)
	code, _, stderr := runIn(t, net.client[sj.shards], bin, env, args...)
	if code != 1 || !strings.Contains(stderr, "refusing to start") {
		t.Errorf("late shard: exit %d, stderr %q; want exit 1, refusing to start", code, stderr)
	}
	t.Logf("late shard: tressi %s: exit %d: %s", strings.Join(args, " "), code, strings.TrimSpace(stderr))
	if _, err := os.Stat(filepath.Join(resultsDir, "late")); !os.IsNotExist(err) {
		t.Error("the late shard left a run directory")
	}

	// The merge Job's arguments, as its pod runs them.
	merge := loadJob(t, "kubernetes/merge-job.yaml").Spec.Template.Spec.Containers[0]
	margs, menv := containerCommand(t, merge, 0, runCM, vars, secrets, mounts)
	code, mdOut, stderr := run(t, bin, menv, margs...)
	if code != 2 || !strings.Contains(mdOut, `| error\_count | FAILED | 240 | 100 |`) {
		t.Errorf("merge: exit %d, want 2 (240 errors over error_count = 100)\n%s\n%s", code, mdOut, stderr)
	}
	t.Logf("merge: tressi %s: exit %d", strings.Join(margs, " "), code)
	merged := reportJSON(t, bin, 2, shardDirs...)
	for _, d := range shardDirs {
		alone := reportJSON(t, bin, 0, d)
		t.Logf("%s alone: %d requests, %d errors, error_count ok = %v", filepath.Base(d), alone.Requests, alone.Errors, alone.Thresholds[0].OK)
	}

	// One process, the whole schedule, the same plan sources and hash.
	whole := filepath.Join(t.TempDir(), "whole")
	code, _, stderr = runIn(t, net.client[sj.shards], bin, append(planEnv, "TRESSI_VAR_max_errors=1000000"),
		"apply", planDir, "--quiet", "--expect-hash", hash, "--out", whole)
	if code != 0 {
		t.Fatalf("the whole run: exit %d, want 0\n%s", code, stderr)
	}
	single := reportJSON(t, bin, 0, whole)

	for _, c := range []struct {
		what       string
		got, wantv any
	}{
		{"requests", merged.Requests, single.Requests},
		{"sent", merged.Sent, single.Sent},
		{"ok", merged.OK, single.OK},
		{"errors", merged.Errors, single.Errors},
		{"status", merged.Status, single.Status},
		{"error_kinds", merged.ErrorKinds, single.ErrorKinds},
		{"bytes_out", merged.BytesOut, single.BytesOut},
		{"bytes_in", merged.BytesIn, single.BytesIn},
		{"endpoints", endpointCounts(merged), endpointCounts(single)},
	} {
		g, _ := json.Marshal(c.got)
		w, _ := json.Marshal(c.wantv)
		if string(g) != string(w) {
			t.Errorf("%s: merged %s, single run %s", c.what, g, w)
		} else {
			t.Logf("%-11s merged = single run = %s", c.what, g)
		}
	}
	if merged.Requests != 1200 || merged.Errors != 240 {
		t.Errorf("merged %d requests, %d errors; want 1200 and 240", merged.Requests, merged.Errors)
	}

	// Percentiles and the verdict: the merge against all the shards' rows
	// as one run.
	all := concatShards(t, shardDirs, filepath.Join(t.TempDir(), "all"))
	asOne := reportJSON(t, bin, 2, all)
	if g, w := thresholdVerdicts(merged), thresholdVerdicts(asOne); strings.Join(g, ";") != strings.Join(w, ";") {
		t.Errorf("thresholds: merged %q, the rows as one run %q", g, w)
	} else {
		t.Logf("thresholds merged = rows as one run = %q", g)
	}
	for _, c := range []struct {
		what      string
		got, want report.Percentiles
	}{
		{"latency_ms", merged.Latency, asOne.Latency},
		{"service_ms", merged.Service, asOne.Service},
	} {
		if c.got != c.want {
			t.Errorf("%s: merged %+v, the rows as one run %+v", c.what, c.got, c.want)
		} else {
			t.Logf("%s merged = rows as one run = %+v (the single process measured %+v)", c.what, c.got, pick(single, c.what))
		}
	}
	for i := range merged.Endpoints {
		if merged.Endpoints[i].Latency != asOne.Endpoints[i].Latency {
			t.Errorf("endpoint %s latency: merged %+v, as one %+v", merged.Endpoints[i].Name, merged.Endpoints[i].Latency, asOne.Endpoints[i].Latency)
		}
	}

	// The secret reached the target (every request was answered as
	// planned) but no file of any run.
	_ = filepath.WalkDir(resultsDir, func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if data, _ := os.ReadFile(path); strings.Contains(string(data), secretToken) {
				t.Errorf("%s holds the sensitive token", path)
			}
		}
		return nil
	})
}

func pick(s *report.Report, what string) report.Percentiles {
	if what == "service_ms" {
		return s.Service
	}
	return s.Latency
}

func endpointCounts(r *report.Report) map[string]any {
	m := map[string]any{}
	for _, e := range r.Endpoints {
		m[e.Name] = map[string]any{"requests": e.Requests, "ok": e.OK, "status": e.Status}
	}
	return m
}

func thresholdVerdicts(r *report.Report) []string {
	var out []string
	for _, th := range r.Thresholds {
		out = append(out, fmt.Sprintf("%s ok=%v actual=%v", th.Name, th.OK, th.Actual))
	}
	return out
}

// logStart logs what meta.json says about a shard's start.
func logStart(t *testing.T, dir string) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, "meta.json"))
	if err != nil {
		t.Fatal(err)
	}
	var m struct {
		Start     time.Time  `json:"start"`
		FirstSend *time.Time `json:"first_send"`
		Skew      *float64   `json:"first_send_skew_ms"`
	}
	if err := json.Unmarshal(data, &m); err != nil || m.FirstSend == nil || m.Skew == nil {
		t.Fatalf("%s/meta.json: %v; want first_send and first_send_skew_ms\n%s", dir, err, data)
	}
	t.Logf("%s: start %s, first send %s, skew %.3f ms", filepath.Base(dir), m.Start.Format(time.RFC3339Nano),
		m.FirstSend.Format(time.RFC3339Nano), *m.Skew)
}

// containerCommand is what Kubernetes runs in pod index of c: its args with
// $(VAR) expanded from the container's environment (env from ConfigMaps and
// Secrets, envFrom with its prefix, JOB_COMPLETION_INDEX), and the volume
// mounts mapped to directories here. It returns the args and the
// environment the process gets.
func containerCommand(t *testing.T, c corev1.Container, index int, runCM, vars, secrets, mounts map[string]string) ([]string, []string) {
	t.Helper()
	env := map[string]string{"JOB_COMPLETION_INDEX": fmt.Sprint(index)}
	for _, e := range c.Env {
		switch {
		case e.ValueFrom != nil && e.ValueFrom.ConfigMapKeyRef != nil && e.ValueFrom.ConfigMapKeyRef.Name == "tressi-run":
			v, ok := runCM[e.ValueFrom.ConfigMapKeyRef.Key]
			if !ok {
				t.Fatalf("env %s reads tressi-run key %q, which the walk-through does not create", e.Name, e.ValueFrom.ConfigMapKeyRef.Key)
			}
			env[e.Name] = v
		case e.ValueFrom == nil:
			env[e.Name] = expandK8s(e.Value, env)
		default:
			t.Fatalf("env %s: this test knows values and tressi-run keys", e.Name)
		}
	}
	for _, ef := range c.EnvFrom {
		var src map[string]string
		switch {
		case ef.ConfigMapRef != nil && ef.ConfigMapRef.Name == "tressi-vars":
			src = vars
		case ef.SecretRef != nil && ef.SecretRef.Name == "tressi-secrets":
			src = secrets
		default:
			t.Fatalf("envFrom %+v: this test knows tressi-vars and tressi-secrets", ef)
		}
		for k, v := range src {
			env[ef.Prefix+k] = v
		}
	}
	args := make([]string, len(c.Args))
	for i, a := range c.Args {
		args[i] = mapMounts(expandK8s(a, env), c.VolumeMounts, mounts)
	}
	var environ []string
	for k, v := range env {
		environ = append(environ, k+"="+v)
	}
	sort.Strings(environ)
	return args, environ
}

var k8sVarRef = regexp.MustCompile(`\$\$|\$\(([A-Za-z_][A-Za-z0-9_]*)\)`)

// expandK8s expands $(VAR) as Kubernetes does in args: a defined variable
// is replaced, an undefined reference stays as written, $$ is a $.
func expandK8s(s string, env map[string]string) string {
	return k8sVarRef.ReplaceAllStringFunc(s, func(m string) string {
		if m == "$$" {
			return "$"
		}
		if v, ok := env[m[2:len(m)-1]]; ok {
			return v
		}
		return m
	})
}

// mapMounts rewrites a path under a volume's mount path to the directory
// standing for that volume here.
func mapMounts(arg string, vm []corev1.VolumeMount, dirs map[string]string) string {
	for _, m := range vm {
		dir, ok := dirs[m.Name]
		if !ok {
			continue
		}
		if arg == m.MountPath || strings.HasPrefix(arg, m.MountPath+"/") {
			return dir + strings.TrimPrefix(arg, m.MountPath)
		}
	}
	return arg
}

// network is a target namespace holding a bridge, and client namespaces
// each joined to it by a veth pair; all named for this branch and process.
type network struct {
	target   string
	targetIP string
	client   []string
}

func newNetwork(t *testing.T, clients int) *network {
	t.Helper()
	id := os.Getpid() % 100000
	n := &network{target: fmt.Sprintf("scaleout-%d-tgt", id), targetIP: "10.213.0.1"}
	ip := func(args ...string) error {
		out, err := osexec.Command("ip", args...).CombinedOutput()
		if err != nil {
			return fmt.Errorf("ip %s: %v: %s", strings.Join(args, " "), err, out)
		}
		return nil
	}
	var made []string
	t.Cleanup(func() {
		for _, ns := range made {
			_ = ip("netns", "del", ns) // takes its veth ends and the bridge with it
		}
	})
	if err := ip("netns", "add", n.target); err != nil {
		t.Skipf("cannot create a network namespace here: %v", err)
	}
	made = append(made, n.target)
	bridge := fmt.Sprintf("so%dbr", id)
	must := func(args ...string) {
		t.Helper()
		if err := ip(args...); err != nil {
			t.Fatal(err)
		}
	}
	must("-n", n.target, "link", "set", "lo", "up")
	must("-n", n.target, "link", "add", bridge, "type", "bridge")
	must("-n", n.target, "addr", "add", n.targetIP+"/24", "dev", bridge)
	must("-n", n.target, "link", "set", bridge, "up")
	for i := 0; i < clients; i++ {
		ns := fmt.Sprintf("scaleout-%d-c%d", id, i)
		host, peer := fmt.Sprintf("so%dh%d", id, i), fmt.Sprintf("so%dp%d", id, i)
		must("netns", "add", ns)
		made = append(made, ns)
		must("link", "add", host, "type", "veth", "peer", "name", peer)
		must("link", "set", host, "netns", n.target)
		must("link", "set", peer, "netns", ns)
		must("-n", n.target, "link", "set", host, "master", bridge)
		must("-n", n.target, "link", "set", host, "up")
		must("-n", ns, "link", "set", "lo", "up")
		must("-n", ns, "addr", "add", fmt.Sprintf("10.213.0.%d/24", 10+i), "dev", peer)
		must("-n", ns, "link", "set", peer, "up")
		n.client = append(n.client, ns)
	}
	return n
}

var listening = regexp.MustCompile(`listening on (http://\S+)`)

// startTarget runs `tressi target` in the target namespace on a free port
// of the bridge's address, until the test ends.
func startTarget(t *testing.T, bin string, n *network) string {
	t.Helper()
	cmd := osexec.Command("ip", "netns", "exec", n.target, bin, "target", "--addr", n.targetIP+":0", "--allow-remote")
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGINT)
		_ = cmd.Wait()
	})
	found := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if m := listening.FindStringSubmatch(sc.Text()); m != nil {
				found <- m[1]
			}
		}
	}()
	select {
	case url := <-found:
		return url
	case <-time.After(30 * time.Second):
		t.Fatal("the target printed no listening line in 30 s")
	}
	return ""
}

func buildTressi(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "tressi")
	out, err := osexec.Command("go", "build", "-o", bin, "github.com/tressi/tressi/cmd/tressi").CombinedOutput()
	if err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// run runs bin with exactly env and returns its exit code and output.
func run(t *testing.T, bin string, env []string, args ...string) (int, string, string) {
	t.Helper()
	return runCmd(t, osexec.Command(bin, args...), env)
}

// runIn runs bin in network namespace ns.
func runIn(t *testing.T, ns, bin string, env []string, args ...string) (int, string, string) {
	t.Helper()
	return runCmd(t, osexec.Command("ip", append([]string{"netns", "exec", ns, bin}, args...)...), env)
}

func runCmd(t *testing.T, cmd *osexec.Cmd, env []string) (int, string, string) {
	t.Helper()
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.Env = append([]string{"PATH=" + os.Getenv("PATH")}, env...)
	cmd.WaitDelay = 5 * time.Second
	err := cmd.Run()
	if ee, ok := err.(*osexec.ExitError); ok {
		return ee.ExitCode(), stdout.String(), stderr.String()
	}
	if err != nil {
		t.Fatalf("%s: %v", cmd, err)
	}
	return 0, stdout.String(), stderr.String()
}

func planHash(t *testing.T, bin string, env []string, dir string) string {
	t.Helper()
	code, out, stderr := run(t, bin, env, "plan", dir, "--json")
	if code != 0 {
		t.Fatalf("tressi plan: exit %d\n%s", code, stderr)
	}
	var s struct {
		Hash string `json:"schedule_hash"`
	}
	if err := json.Unmarshal([]byte(out), &s); err != nil || s.Hash == "" {
		t.Fatalf("tressi plan --json: %v\n%s", err, out)
	}
	return s.Hash
}

// reportJSON runs `tressi report --format json` and checks its exit code.
func reportJSON(t *testing.T, bin string, wantCode int, inputs ...string) *report.Report {
	t.Helper()
	code, out, stderr := run(t, bin, nil, append([]string{"report", "--format", "json"}, inputs...)...)
	if code != wantCode {
		t.Fatalf("tressi report %s: exit %d, want %d\n%s", strings.Join(inputs, " "), code, wantCode, stderr)
	}
	var r report.Report
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatal(err)
	}
	return &r
}

// concatShards writes every row of the shards into one unsharded run
// directory (the first shard's plan.tplan beside it, for its thresholds):
// what one process recording all of them would have written.
func concatShards(t *testing.T, shards []string, dir string) string {
	t.Helper()
	var rows []results.Row
	var meta results.Meta
	var names []string
	index := map[string]uint16{}
	errKind := map[string]results.ErrorKind{}
	for k, name := range results.ErrorNames {
		errKind[name] = results.ErrorKind(k)
	}
	for i, s := range shards {
		r, err := results.Open(filepath.Join(s, "results.arrow"))
		if err != nil {
			t.Fatal(err)
		}
		if i == 0 {
			meta = r.Meta
		}
		for {
			b, ok := r.Next()
			if !ok {
				break
			}
			for j := 0; j < b.Len; j++ {
				name := b.EndpointNames[b.Endpoint[j]]
				if _, ok := index[name]; !ok {
					index[name] = uint16(len(names))
					names = append(names, name)
				}
				rows = append(rows, results.Row{Slot: b.Slot[j], Scheduled: b.Scheduled[j], Sent: b.Sent[j],
					Latency: b.Latency[j], Service: b.Service[j], BytesOut: b.BytesOut[j], BytesIn: b.BytesIn[j],
					Status: b.Status[j], Endpoint: index[name], Error: errKind[b.ErrorNames[b.Error[j]]]})
			}
		}
		if r.Err() != nil || r.Truncated != nil {
			t.Fatalf("%s: %v %v", s, r.Err(), r.Truncated)
		}
		r.Close()
	}
	sort.Slice(rows, func(i, j int) bool { return rows[i].Slot < rows[j].Slot })
	meta.Shard = results.Shard{Index: 0, Count: 1}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	f, err := os.Create(filepath.Join(dir, "results.arrow"))
	if err != nil {
		t.Fatal(err)
	}
	w, err := results.NewWriter(f, meta, names)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write(rows); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	tplan, err := os.ReadFile(filepath.Join(shards[0], "plan.tplan"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "plan.tplan"), tplan, 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}
