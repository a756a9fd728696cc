package compile

import (
	"io/fs"
	"net/url"
	"strconv"
	"time"

	"github.com/tressi/tressi/plan"
)

// openPlan builds a one-target plan with the given endpoints (name:weight)
// and open-model stages.
func openPlan(t tb, stages []plan.Stage, weights ...int) *plan.Plan {
	t.Helper()
	u, err := url.Parse("http://127.0.0.1:8080/api/")
	if err != nil {
		t.Fatal(err)
	}
	p := &plan.Plan{
		Name:    "test",
		Sources: map[string][]byte{"tressi.hcl": []byte("# plan\n")},
		Targets: []*plan.Target{{Name: "api", URL: u, Headers: []plan.Header{{Name: "User-Agent", Value: plan.LiteralTemplate("tressi")}}}},
		Load:    &plan.LoadProfile{Model: plan.ModelOpen, Selection: plan.SelectWeighted, Arrival: plan.ArrivalUniform, Seed: 42, Stages: stages},
	}
	names := []string{"home", "create", "list", "delete", "search"}
	for i, w := range weights {
		p.Endpoints = append(p.Endpoints, &plan.Endpoint{Name: entryName(names, i), Weight: w,
			Request: plan.Request{Target: "api", Method: "GET", Path: plan.LiteralTemplate("/" + names[i%len(names)])}})
	}
	return p
}

// tb is what the helpers need from *testing.T and *rapid.T alike.
type tb interface {
	Helper()
	Fatal(args ...any)
	Fatalf(format string, args ...any)
}

func constant(d time.Duration, rate float64) plan.Stage {
	return plan.Stage{Duration: d, From: rate, To: rate}
}
func ramp(d time.Duration, from, to float64) plan.Stage {
	return plan.Stage{Duration: d, From: from, To: to}
}

// compileFS loads p.hcl from fsys and compiles it, failing on any error.
func compileFS(t tb, fsys fs.FS) *Schedule {
	t.Helper()
	p, _, diags := plan.Load(plan.Options{Path: "p.hcl", FS: fsys})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	return mustCompile(t, p)
}

func mustCompile(t tb, p *plan.Plan) *Schedule {
	t.Helper()
	s, diags := Compile(p)
	if diags.HasErrors() {
		t.Fatalf("compile: %v", diags)
	}
	return s
}

// allSlots drains a schedule's stream; tests only, on small schedules.
func allSlots(s *Schedule) []Slot {
	var out []Slot
	buf := make([]Slot, 1000)
	src := s.Slots()
	for {
		n := src.Next(buf)
		if n == 0 {
			return out
		}
		out = append(out, buf[:n]...)
	}
}

func entryName(names []string, i int) string {
	if i < len(names) {
		return names[i]
	}
	return names[i%len(names)] + strconv.Itoa(i)
}
