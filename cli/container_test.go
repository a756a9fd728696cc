package cli

import (
	"os"
	osexec "os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// container/build names a valid image tag from the checkout (it once read
// a `var Version` that had moved, and podman refused "localhost/tressi:"),
// and the version the Containerfile stamps is the one `tressi --version`
// prints: the test builds with the Containerfile's own -ldflags.
func TestContainerBuildStampsItsVersion(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	tagRE := regexp.MustCompile(`^localhost/tressi:[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}$`)
	for _, version := range []string{"", "v1.2.0", "v1.2.0+meta/x"} {
		cmd := osexec.Command("bash", "../container/build", "--print-tag")
		cmd.Env = append(os.Environ(), "VERSION="+version)
		out, err := cmd.CombinedOutput()
		if tag := strings.TrimSpace(string(out)); err != nil || !tagRE.MatchString(tag) {
			t.Errorf("VERSION=%q: container/build --print-tag: %v, %q is not a valid image tag", version, err, out)
		}
	}

	containerfile, err := os.ReadFile("../Containerfile")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`-X (\S+)=\$\{VERSION\}`).FindSubmatch(containerfile)
	if m == nil {
		t.Fatal("the Containerfile stamps no ${VERSION} with -X")
	}
	bin := filepath.Join(t.TempDir(), "tressi")
	build := osexec.Command("go", "build", "-ldflags", "-X "+string(m[1])+"=v9.9.9-test", "-o", bin, "github.com/tressi/tressi/cmd/tressi")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	out, err := osexec.Command(bin, "--version").CombinedOutput()
	if err != nil || !strings.Contains(string(out), "v9.9.9-test") {
		t.Fatalf("tressi --version after the Containerfile's stamp: %v\n%s", err, out)
	}
}
