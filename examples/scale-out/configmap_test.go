package scaleout

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/tressi/tressi/compile"
	"github.com/tressi/tressi/plan"
)

// A ConfigMap volume is not a plain directory: each key is a symlink into
// ..data, itself a symlink to a timestamped directory. The shards read the
// plan from such a mount; it must load, and compile to the schedule of the
// plain directory the operator planned from.
func TestPlanLoadsFromAConfigMapMount(t *testing.T) {
	src, err := os.ReadFile("plan/plan.hcl")
	if err != nil {
		t.Fatal(err)
	}
	mount := filepath.Join(t.TempDir(), "plan")
	stamp := filepath.Join(mount, "..2026_01_01_12_00_00.000000001")
	if err := os.MkdirAll(stamp, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(stamp, "plan.hcl"), src, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Base(stamp), filepath.Join(mount, "..data")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join("..data", "plan.hcl"), filepath.Join(mount, "plan.hcl")); err != nil {
		t.Fatal(err)
	}
	hash := func(dir string) string {
		t.Helper()
		p, _, diags := plan.Load(plan.Options{Path: dir})
		if diags.HasErrors() {
			t.Fatalf("%s: %v", dir, diags)
		}
		s, cdiags := compile.Compile(p)
		if cdiags.HasErrors() {
			t.Fatalf("%s: %v", dir, cdiags)
		}
		return s.Hash
	}
	if got, want := hash(mount), hash("plan"); got != want {
		t.Errorf("the ConfigMap mount compiles to %s, the plan directory to %s", got, want)
	}
}
