package compile

import (
	"testing"
	"testing/fstest"
	"time"

	"github.com/tressi/tressi/plan"
)

func searchPlan(t *testing.T, model string) *plan.Plan {
	t.Helper()
	src := `
target "t" {
  url = "http://127.0.0.1:1"
}
endpoint "e" {
  path = "/"
}
load {
  model = "` + model + `"
  search {
    from   = 40
    to     = 400
    warmup = "2s"
    hold   = "5s"
  }
}
thresholds {
  p99 = "50ms"
}
`
	p, _, diags := plan.Load(plan.Options{Path: "p.hcl", FS: fstest.MapFS{"p.hcl": {Data: []byte(src)}}})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	return p
}

// A probe is the plan at one value: the warmup's first half ramps from 0,
// the rest runs at the value, so the count is exact.
func TestCompileProbeOpen(t *testing.T) {
	p := searchPlan(t, "open")
	s, diags := CompileProbe(p, 100)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	// 1 s ramp 0→100: 50 arrivals; then 6 s at 100: 600.
	if s.Count != 650 || s.Duration != 7*time.Second {
		t.Fatalf("count %d over %v, want 650 over 7s", s.Count, s.Duration)
	}
	again, _ := CompileProbe(p, 100)
	other, _ := CompileProbe(p, 101)
	if again.Hash != s.Hash || other.Hash == s.Hash {
		t.Fatalf("hashes %s %s %s: the same value must give the same schedule, another value another", s.Hash, again.Hash, other.Hash)
	}
	if _, diags := Compile(p); !diags.HasErrors() || diags[0].Summary != "Search plan has probes, not one schedule" {
		t.Fatalf("Compile of a search plan: %v", diags)
	}
}

func TestCompileProbeClosed(t *testing.T) {
	s, diags := CompileProbe(searchPlan(t, "closed"), 100)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	if len(s.Users) != 100 || s.Users[99].Stop != int64(7*time.Second) {
		t.Fatalf("%d users, last %+v", len(s.Users), s.Users[len(s.Users)-1])
	}
	// The ramp starts the users over the first second, user 100 at its end.
	if s.Users[99].Start != int64(time.Second) {
		t.Fatalf("user 100 starts at %v, want 1s", time.Duration(s.Users[99].Start))
	}
}
