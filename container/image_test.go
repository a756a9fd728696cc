package container

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tressi/tressi/compile"
	"github.com/tressi/tressi/plan"
)

// podmanFlags are the global flags container/build uses by default: hosts
// without systemd or cgroup delegation (CI, containers) need them.
var podmanFlags = []string{"--runtime", "runc", "--cgroup-manager=cgroupfs"}

func podman(t *testing.T, args ...string) (string, error) {
	t.Helper()
	out, err := exec.Command("podman", append(append([]string{}, podmanFlags...), args...)...).CombinedOutput()
	return string(out), err
}

// runImage runs the image with explicit ulimits (podman cannot read them
// from a cgroup-less host).
func runImage(t *testing.T, tag string, extra []string, args ...string) string {
	t.Helper()
	full := append([]string{"run", "--rm", "--ulimit", "nofile=20000:20000", "--ulimit", "nproc=4096:4096"}, extra...)
	out, err := podman(t, append(append(full, tag), args...)...)
	if err != nil {
		t.Fatalf("podman run %s %s: %v\n%s", tag, strings.Join(args, " "), err, out)
	}
	return out
}

func TestImageBuildsOfflineAndRuns(t *testing.T) {
	if os.Getenv("TRESSI_TEST_IMAGE") != "1" {
		t.Skip("set TRESSI_TEST_IMAGE=1 to build the image (podman; a cold build takes minutes)")
	}
	if _, err := exec.LookPath("podman"); err != nil {
		t.Skip("podman is not installed (Debian: apt-get install podman runc busybox-static)")
	}
	tag := fmt.Sprintf("localhost/tressi:test-%d", os.Getpid())
	build := exec.Command("./build")
	build.Env = append(os.Environ(), "TAG="+tag)
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("container/build: %v\n%s", err, out)
	}
	t.Cleanup(func() { _, _ = podman(t, "rmi", tag) })

	if out := runImage(t, tag, nil, "--version"); !strings.HasPrefix(out, "tressi version ") {
		t.Errorf("--version printed %q", out)
	}
	out, err := podman(t, "image", "inspect", tag, "--format", "{{.Config.User}} {{json .Config.Entrypoint}}")
	if err != nil {
		t.Fatal(err, out)
	}
	if want := `65532:65532 ["/usr/local/bin/tressi"]`; strings.TrimSpace(out) != want {
		t.Errorf("user and entrypoint %q, want %q", strings.TrimSpace(out), want)
	}

	// The image compiles the example plan's sources, as the non-root user,
	// to the schedule compiled here: --expect-hash holds across machines.
	dir, err := filepath.Abs("../examples/scale-out/plan")
	if err != nil {
		t.Fatal(err)
	}
	out = runImage(t, tag, []string{"--volume", dir + ":/plan:ro"}, "plan", "/plan", "--json")
	var got struct {
		Hash string `json:"schedule_hash"`
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	p, _, diags := plan.Load(plan.Options{Path: dir})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	s, cdiags := compile.Compile(p)
	if cdiags.HasErrors() {
		t.Fatal(cdiags)
	}
	if got.Hash != s.Hash {
		t.Errorf("the image compiles the plan to %s, this machine to %s", got.Hash, s.Hash)
	}
}
