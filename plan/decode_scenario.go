package plan

import (
	"fmt"

	"github.com/hashicorp/hcl/v2"
)

func (l *loader) decodeScenarioBlock(b *hcl.Block) (*Scenario, hcl.Diagnostics) {
	content, diags := b.Body.Content(scenarioSchema)
	s := &Scenario{Name: b.Labels[0], DeclRange: b.DefRange}
	diags = append(diags, l.claimName("scenario", s.Name, b)...)
	attrs := content.Attributes

	s.Weight, diags = l.weight(attrs, diags)
	think, _, d := l.durationAttr(attrs, "think")
	diags = append(diags, d...)
	s.Think = think
	mode, d := l.enumAttr(attrs, "connection", ConnectionPool, ConnectionSession)
	diags = append(diags, d...)
	s.Connection = mode

	var steps []*hcl.Block
	for _, sb := range content.Blocks {
		if sb.Type == "step" {
			steps = append(steps, sb)
		}
	}
	data, noRow, d := l.scenarioData(attrs, steps)
	diags = append(diags, d...)
	if data != nil {
		s.Data = data.Name
	}
	if len(steps) == 0 {
		diags = append(diags, &hcl.Diagnostic{
			Severity: hcl.DiagError,
			Summary:  "Scenario without steps",
			Detail:   fmt.Sprintf("Scenario %q has no step blocks. Add at least one, such as `step \"home\" { path = \"/\" }`.", s.Name),
			Subject:  b.DefRange.Ptr(),
		})
	}

	s.Steps, d = l.decodeSteps(s.Name, steps, data, noRow)
	diags = append(diags, d...)
	return s, diags
}

// scenarioData picks the data block feeding row.*: the one named by `data`,
// or the plan's only data block when a step uses row.*.
func (l *loader) scenarioData(attrs hcl.Attributes, steps []*hcl.Block) (*Data, string, hcl.Diagnostics) {
	name, attr, diags := l.stringAttr(attrs, "data")
	if attr != nil {
		d := l.data[name]
		if d == nil {
			diags = append(diags, attrError(attr, "Unknown data block", fmt.Sprintf("No data block %q is declared%s.", name, available("declared", mapKeys(l.data)))))
			return nil, fmt.Sprintf("data %q is not declared.", name), diags
		}
		return d, "", diags
	}
	d, why := l.soleData("A scenario without `data = \"...\"`")
	if d == nil {
		return nil, why, diags
	}
	for _, sb := range steps {
		if c, _, _ := sb.Body.PartialContent(stepSchema); usesRoot(c.Attributes, "row") {
			return d, "", diags
		}
	}
	return nil, "", diags
}

// decodeSteps decodes a scenario's steps in order: each may use what earlier
// steps captured.
func (l *loader) decodeSteps(scenario string, blocks []*hcl.Block, data *Data, noRow string) ([]*Step, hcl.Diagnostics) {
	var diags hcl.Diagnostics
	contents := make([]*hcl.BodyContent, len(blocks))
	captures := make([][]Capture, len(blocks))
	later := map[string]string{}
	for i, b := range blocks {
		c, d := b.Body.Content(stepSchema)
		diags = append(diags, d...)
		contents[i] = c
		if attr := c.Attributes["capture"]; attr != nil {
			captures[i], d = l.decodeCaptures(attr)
			diags = append(diags, d...)
			for _, c := range captures[i] {
				if _, seen := later[c.Name]; !seen {
					later[c.Name] = b.Labels[0]
				}
			}
		}
	}

	var steps []*Step
	captured := map[string]bool{}
	firstStep := map[string]hcl.Range{}
	for i, b := range blocks {
		st := &Step{Name: b.Labels[0], Repeat: 1, Think: -1, Captures: captures[i], DeclRange: b.DefRange}
		if first, dup := firstStep[st.Name]; dup {
			diags = append(diags, duplicate("step", st.Name, b.DefRange, first))
		}
		firstStep[st.Name] = b.DefRange
		pending := map[string]string{}
		for name, step := range later {
			if !captured[name] {
				pending[name] = step
			}
		}
		sc := scope{
			what:       fmt.Sprintf("scenario %q step %q", scenario, st.Name),
			perRequest: true,
			data:       data,
			noRow:      noRow,
			captured:   copySet(captured),
			later:      pending,
		}
		var d hcl.Diagnostics
		st.Request, d = l.decodeRequest(contents[i], b, sc)
		diags = append(diags, d...)

		repeat, attr, d := l.intAttr(contents[i].Attributes, "repeat")
		diags = append(diags, d...)
		if attr != nil && (repeat <= 0 || repeat > 1<<30) {
			diags = append(diags, attrError(attr, "Invalid repeat", fmt.Sprintf("repeat must be a whole number > 0 (got %d).", repeat)))
		} else if attr != nil {
			st.Repeat = int(repeat)
		}
		think, attr, d := l.durationAttr(contents[i].Attributes, "think")
		diags = append(diags, d...)
		if attr != nil {
			st.Think = think
		}
		for _, c := range st.Captures {
			captured[c.Name] = true
		}
		steps = append(steps, st)
	}
	return steps, diags
}

func copySet(m map[string]bool) map[string]bool {
	out := make(map[string]bool, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}
