package compile

import (
	"testing"
	"time"

	"github.com/tressi/tressi/plan"
)

func TestHashDeterministic(t *testing.T) {
	p := openPlan(t, []plan.Stage{ramp(3*time.Second, 10, 100)}, 3, 1)
	a, b := mustCompile(t, p), mustCompile(t, p)
	if a.Hash != b.Hash || len(a.Hash) != 64 {
		t.Fatalf("hashes %s %s", a.Hash, b.Hash)
	}
	// The name and sources decide nothing that is sent.
	p.Name = "other"
	p.Sources = map[string][]byte{"x.hcl.json": []byte("{}")}
	if mustCompile(t, p).Hash != a.Hash {
		t.Fatal("name or sources changed the hash")
	}
	change := []func(p *plan.Plan){
		func(p *plan.Plan) { p.Load.Seed = 43 },
		func(p *plan.Plan) { p.Load.Selection = plan.SelectRoundRobin },
		func(p *plan.Plan) { p.Endpoints[0].Path = plan.LiteralTemplate("/x") },
		func(p *plan.Plan) { p.Targets[0].Timeout = time.Second },
		func(p *plan.Plan) { p.Load.Stages[0].To = 101 },
	}
	for i, f := range change {
		q := openPlan(t, []plan.Stage{ramp(3*time.Second, 10, 100)}, 3, 1)
		f(q)
		if mustCompile(t, q).Hash == a.Hash {
			t.Errorf("change %d kept the hash", i)
		}
	}
}
