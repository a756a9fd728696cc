package compile

import (
	"fmt"

	"github.com/hashicorp/hcl/v2"

	"github.com/tressi/tressi/plan"
)

// CompileProbe compiles one probe of a search plan: the plan's load with
// its search replaced by ProbeStages (arrivals per second in the open
// model, users in the closed one).
// Everything else — requests, selection, seed, arrival — is the plan's, so
// the same plan, seed and value always give the same probe schedule.
func CompileProbe(p *plan.Plan, value float64) (*Schedule, hcl.Diagnostics) {
	if p.Load == nil || p.Load.Search == nil {
		return nil, hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "Not a search plan",
			Detail: "Only a plan whose load has a search block has probes; compile it with Compile."}}
	}
	sr := p.Load.Search
	ld := *p.Load
	ld.Search = nil
	ld.Stages = ProbeStages(sr, value)
	probe := *p
	probe.Load = &ld
	return Compile(&probe)
}

// searchPlanError is what Compile says about a search plan, which has no
// single schedule.
func searchPlanError(p *plan.Plan) hcl.Diagnostics {
	return errorAt(p.Load.Search.DeclRange, "Search plan has probes, not one schedule",
		fmt.Sprintf("This load searches from %g to %g: tressi plan shows its probes and tressi apply runs them. Each probe is compiled on its own (CompileProbe).",
			p.Load.Search.From, p.Load.Search.To))
}

// ProbeStages are a probe's stages: the first half of the warmup ramps
// linearly from 0 to value, the second half and the hold run at value.
// Starting at full value would open every connection at once and hand the
// service one burst, whose backlog near capacity takes far longer than a
// warmup to drain (at 96% of capacity, 30 ms of backlog drain in 0.75 s), so
// the hold would judge the start-up, not the service.
func ProbeStages(sr *plan.Search, value float64) []plan.Stage {
	ramp := sr.Warmup / 2
	var out []plan.Stage
	if ramp > 0 {
		out = append(out, plan.Stage{Duration: ramp, From: 0, To: value, DeclRange: sr.DeclRange})
	}
	return append(out, plan.Stage{Duration: sr.Warmup - ramp + sr.Hold, From: value, To: value, DeclRange: sr.DeclRange})
}
