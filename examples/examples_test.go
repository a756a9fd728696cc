package examples_test

import (
	"io/fs"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"

	"github.com/tressi/tressi/plan"
)

// planPaths lists every example plan: each *.hcl file at the top level, and
// each subdirectory holding .hcl files (a multi-file plan).
func planPaths(t *testing.T) []string {
	var paths []string
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		switch {
		case d.IsDir() && path != ".":
			if m, _ := filepath.Glob(filepath.Join(path, "*.hcl")); len(m) > 0 {
				paths = append(paths, path)
			}
		case !d.IsDir() && filepath.Dir(path) == "." && strings.HasSuffix(path, ".hcl"):
			paths = append(paths, path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return paths
}

func TestExamplesLoad(t *testing.T) {
	paths := planPaths(t)
	if len(paths) == 0 {
		t.Fatal("no example plans found")
	}
	for _, path := range paths {
		t.Run(path, func(t *testing.T) {
			p, files, diags := plan.Load(plan.Options{Path: path})
			if len(diags) > 0 {
				var b strings.Builder
				_ = hcl.NewDiagnosticTextWriter(&b, files, 100, false).WriteDiagnostics(diags)
				t.Errorf("example has diagnostics (warnings count too: examples should be clean):\n%s", b.String())
			}
			if p == nil {
				t.Fatal("plan did not load")
			}
		})
	}
}

// TestQuickstartShape pins what `tressi demo` and the README rely on.
func TestQuickstartShape(t *testing.T) {
	p, _, diags := plan.Load(plan.Options{Path: "quickstart.hcl"})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	if p.Name != "quickstart" || len(p.Targets) != 1 || p.Targets[0].URL.String() != "http://127.0.0.1:8080" {
		t.Errorf("unexpected plan: name %q, targets %d", p.Name, len(p.Targets))
	}
	var total float64
	for _, st := range p.Load.Stages {
		total += st.Duration.Seconds()
	}
	if total != 5 || p.Load.Stages[len(p.Load.Stages)-1].To != 200 {
		t.Errorf("quickstart should run ~200 req/s for 5s; got %v", p.Load.Stages)
	}
}
