package plan

import (
	"fmt"

	"github.com/hashicorp/hcl/v2"
)

func (l *loader) decodeLoadBlock(b *hcl.Block) (*LoadProfile, hcl.Diagnostics) {
	content, diags := b.Body.Content(loadSchema)
	ld := &LoadProfile{Model: ModelOpen, Selection: SelectWeighted, Arrival: ArrivalUniform, Seed: 1, DeclRange: b.DefRange}
	attrs := content.Attributes
	if s, d := l.enumAttr(attrs, "model", ModelOpen, ModelClosed); s != "" {
		ld.Model = s
	} else {
		diags = append(diags, d...)
	}
	if s, d := l.enumAttr(attrs, "selection", SelectWeighted, SelectRoundRobin, SelectRandom); s != "" {
		ld.Selection = s
	} else {
		diags = append(diags, d...)
	}
	if s, d := l.enumAttr(attrs, "arrival", ArrivalUniform, ArrivalPoisson); s != "" {
		ld.Arrival = s
		if ld.Model == ModelClosed {
			diags = append(diags, attrError(attrs["arrival"], "arrival is for the open model",
				"In the closed model each user sends its next request when the previous one is done, so there is no arrival process; remove arrival, or set model = \"open\"."))
		}
	} else {
		diags = append(diags, d...)
	}
	seed, attr, d := l.intAttr(attrs, "seed")
	diags = append(diags, d...)
	if attr != nil && seed < 0 {
		diags = append(diags, attrError(attr, "Invalid seed", fmt.Sprintf("seed must be a whole number >= 0 (got %d).", seed)))
	} else if attr != nil {
		ld.Seed = uint64(seed)
	}
	think, attr, d := l.durationAttr(attrs, "think")
	diags = append(diags, d...)
	if attr != nil {
		ld.Think = think
		if ld.Model == ModelOpen {
			diags = append(diags, attrError(attr, "think is for the closed model",
				"In the open model requests start on schedule, so there is nothing to pause between; remove think, or set model = \"closed\"."))
		}
	}

	for _, sb := range content.Blocks {
		if sb.Type == "search" {
			diags = append(diags, l.decodeSearchInto(ld, sb)...)
			continue
		}
		st, d := l.decodeStage(sb, ld.Model)
		diags = append(diags, d...)
		if st != nil {
			ld.Stages = append(ld.Stages, *st)
		}
	}
	if ld.Search != nil {
		diags = append(diags, checkSearchLoad(ld)...)
		return ld, diags
	}
	diags = append(diags, checkStages(ld, b, diags.HasErrors())...)
	return ld, diags
}

// decodeStage reads one stage; open stages count arrivals per second in
// `rate`, closed stages count concurrent `users`.
func (l *loader) decodeStage(b *hcl.Block, model string) (*Stage, hcl.Diagnostics) {
	content, diags := b.Body.Content(stageSchema)
	st := &Stage{DeclRange: b.DefRange}
	attrs := content.Attributes
	dur, attr, d := l.durationAttr(attrs, "duration")
	diags = append(diags, d...)
	if attr != nil && dur <= 0 {
		diags = append(diags, attrError(attr, "Invalid stage duration", "A stage's duration must be greater than zero, such as \"30s\"."))
	}
	st.Duration = dur

	want, other := "rate", "users"
	if model == ModelClosed {
		want, other = "users", "rate"
	}
	if attr := attrs[other]; attr != nil {
		diags = append(diags, &hcl.Diagnostic{
			Severity: hcl.DiagError,
			Summary:  "Open and closed stages mixed",
			Detail: fmt.Sprintf("This load uses the %s model, whose stages set %s; %s belongs to the other model. Use %s here, or change the load's model.",
				model, want, other, want),
			Subject: attr.NameRange.Ptr(),
		})
	}
	from, fromAttr, d := l.numberAttr(attrs, want)
	diags = append(diags, d...)
	if attrs[want] == nil && attrs[other] == nil {
		diags = append(diags, &hcl.Diagnostic{
			Severity: hcl.DiagError,
			Summary:  "Missing stage " + want,
			Detail:   fmt.Sprintf("Each stage of the %s model needs %s (optionally with `to` for a linear ramp).", model, want),
			Subject:  b.DefRange.Ptr(),
		})
	}
	if fromAttr != nil && from < 0 {
		diags = append(diags, attrError(fromAttr, "Invalid stage "+want, fmt.Sprintf("%s must be >= 0 (got %g).", want, from)))
	}
	st.From, st.To = from, from
	to, toAttr, d := l.numberAttr(attrs, "to")
	diags = append(diags, d...)
	if toAttr != nil && to < 0 {
		diags = append(diags, attrError(toAttr, "Invalid stage to", fmt.Sprintf("A ramp must end at %s >= 0 (got %g).", want, to)))
	} else if toAttr != nil {
		st.To = to
	}
	if model == ModelClosed && (st.From != float64(int64(st.From)) || st.To != float64(int64(st.To))) {
		diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Fractional users", Detail: "users and to count concurrent users, so they must be whole numbers.", Subject: b.DefRange.Ptr()})
	}
	return st, diags
}

// checkStages requires a load that starts something. Stages that already
// have errors are not judged again.
func checkStages(ld *LoadProfile, b *hcl.Block, stagesHadErrors bool) hcl.Diagnostics {
	if len(ld.Stages) == 0 {
		return hcl.Diagnostics{{
			Severity: hcl.DiagError,
			Summary:  "Load without stages",
			Detail:   "Add at least one stage, such as `stage { duration = \"30s\"\n rate = 10 }` (open model) or `stage { duration = \"30s\"\n users = 10 }` (closed model).",
			Subject:  b.DefRange.Ptr(),
		}}
	}
	if stagesHadErrors {
		return nil
	}
	for _, st := range ld.Stages {
		if st.From > 0 || st.To > 0 {
			return nil
		}
	}
	return hcl.Diagnostics{{
		Severity: hcl.DiagError,
		Summary:  "Load that starts nothing",
		Detail:   "Every stage has a rate (or users) of 0, so the run would send no request. Give at least one stage a value above 0.",
		Subject:  b.DefRange.Ptr(),
	}}
}
