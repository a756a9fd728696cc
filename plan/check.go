package plan

import (
	"github.com/hashicorp/hcl/v2"
)

// checkPlan enforces what no single block can: a plan must send something
// and say how much.
func (l *loader) checkPlan(p *Plan, files []string) {
	start := &hcl.Range{Filename: files[0], Start: hcl.InitialPos, End: hcl.InitialPos}
	if len(p.Endpoints) == 0 && len(p.Scenarios) == 0 && !l.hadBlocks("endpoint", "scenario") {
		l.diags = append(l.diags, &hcl.Diagnostic{
			Severity: hcl.DiagError,
			Summary:  "Nothing to send",
			Detail:   "The plan has no endpoint or scenario block. Add one, such as `endpoint \"home\" { path = \"/\" }`.",
			Subject:  start,
		})
	}
	if len(p.Endpoints) == 0 && len(p.Scenarios) > 0 {
		total := 0
		for _, sc := range p.Scenarios {
			total += sc.Weight
		}
		if total == 0 {
			l.diags = append(l.diags, &hcl.Diagnostic{
				Severity: hcl.DiagError,
				Summary:  "Nothing to send",
				Detail:   "Every scenario has weight 0, so no session would start. Check the variables that set the weights (such as -var test=...).",
				Subject:  p.Scenarios[0].DeclRange.Ptr(),
			})
		}
	}
	if p.Load == nil && !l.hadBlocks("load") {
		l.diags = append(l.diags, &hcl.Diagnostic{
			Severity: hcl.DiagError,
			Summary:  "Missing load block",
			Detail:   "The plan does not say how much traffic to send. Add a load block, such as `load {\n  stage {\n    duration = \"30s\"\n    rate     = 10\n  }\n}` (10 requests per second for 30 seconds).",
			Subject:  start,
		})
	}
	if p.Load != nil && p.Load.Search != nil {
		l.diags = append(l.diags, checkSearchThresholds(p)...)
	}
}

// hadBlocks reports whether any block of the given types was declared, even
// one that failed to decode: its own diagnostics already say what is wrong.
func (l *loader) hadBlocks(types ...string) bool {
	for _, t := range types {
		if l.declared[t] > 0 {
			return true
		}
	}
	return false
}
