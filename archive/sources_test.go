package archive

import (
	"maps"
	"testing"
)

func TestRelativeSources(t *testing.T) {
	cases := []struct {
		name     string
		sources  []string
		planPath string
		want     map[string]string
		wantPlan string
	}{
		{"file plan beside its data", []string{"ex/login.hcl", "ex/users.csv"}, "ex/login.hcl",
			map[string]string{"ex/login.hcl": "ex/login.hcl", "ex/users.csv": "ex/users.csv"}, "ex/login.hcl"},
		{"directory plan keeps its name", []string{"a/b/tinode/x.hcl", "a/b/tinode/users.csv"}, "a/b/tinode",
			map[string]string{"a/b/tinode/x.hcl": "tinode/x.hcl", "a/b/tinode/users.csv": "tinode/users.csv"}, "tinode"},
		{"data above the plan", []string{"plans/p.hcl", "data/u.csv"}, "plans/p.hcl",
			map[string]string{"plans/p.hcl": "plans/p.hcl", "data/u.csv": "data/u.csv"}, "plans/p.hcl"},
		{"dot-dot paths", []string{"../x/p.hcl", "../../y.csv"}, "../x/p.hcl",
			map[string]string{"../x/p.hcl": "_/x/p.hcl", "../../y.csv": "y.csv"}, "_/x/p.hcl"},
		{"absolute paths", []string{"/home/u/p/p.hcl", "/home/u/p/d/u.csv"}, "/home/u/p/p.hcl",
			map[string]string{"/home/u/p/p.hcl": "p/p.hcl", "/home/u/p/d/u.csv": "p/d/u.csv"}, "p/p.hcl"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, plan := relativeSources(c.sources, c.planPath)
			if !maps.Equal(got, c.want) || plan != c.wantPlan {
				t.Fatalf("got %v, plan %q; want %v, plan %q", got, plan, c.want, c.wantPlan)
			}
		})
	}
}
