package plan

import (
	"fmt"
	"strings"

	"github.com/hashicorp/hcl/v2"
)

func (l *loader) decodeEndpointBlock(b *hcl.Block) (*Endpoint, hcl.Diagnostics) {
	content, diags := b.Body.Content(endpointSchema)
	e := &Endpoint{Name: b.Labels[0], Weight: 1, DeclRange: b.DefRange}
	diags = append(diags, l.claimName("endpoint", e.Name, b)...)

	sc := scope{what: fmt.Sprintf("endpoint %q", e.Name), perRequest: true}
	sc.data, sc.noRow = l.soleData("Endpoints")
	if sc.data != nil && contentUsesRoot(content, "row") {
		e.Data = sc.data.Name
	}
	var d hcl.Diagnostics
	e.Request, d = l.decodeRequest(content, b, sc)
	diags = append(diags, d...)

	e.Weight, diags = l.weight(content.Attributes, diags)
	e.Cookies, d = l.decodeCookies(content.Attributes, true)
	diags = append(diags, d...)
	rate, attr, d := l.numberAttr(content.Attributes, "max_rate")
	diags = append(diags, d...)
	if attr != nil && rate < 0 {
		diags = append(diags, attrError(attr, "Invalid max_rate", fmt.Sprintf("max_rate must be >= 0 requests per second; 0 means no cap (got %g).", rate)))
	} else if attr != nil {
		e.MaxRate = rate
	}
	return e, diags
}

// weight reads a weight attribute: a whole number > 0, default 1.
func (l *loader) weight(attrs hcl.Attributes, diags hcl.Diagnostics) (int, hcl.Diagnostics) {
	w, attr, d := l.intAttr(attrs, "weight")
	diags = append(diags, d...)
	if attr == nil {
		return 1, diags
	}
	if w <= 0 || w > 1<<30 {
		return 1, append(diags, attrError(attr, "Invalid weight", fmt.Sprintf("weight must be a whole number > 0 (got %d); remove the block to stop sending it.", w)))
	}
	return int(w), diags
}

// claimName records an endpoint or scenario name. Both share one name space
// because results and reports name them side by side.
func (l *loader) claimName(kind, name string, b *hcl.Block) hcl.Diagnostics {
	if first, dup := l.names[name]; dup {
		return hcl.Diagnostics{duplicate(kind, name, b.DefRange, first)}
	}
	l.names[name] = b.DefRange
	return nil
}

// soleData returns the plan's only data block, or why there is none to use.
func (l *loader) soleData(who string) (*Data, string) {
	if l.declared["data"] != len(l.data) {
		return nil, "" // a data block failed to load; its diagnostic says why
	}
	switch len(l.data) {
	case 1:
		for _, d := range l.data {
			return d, ""
		}
	case 0:
		return nil, "row.* reads columns of a data block's CSV file, but the plan declares no data block. Add one, such as `data \"users\" { csv = \"users.csv\" }`."
	}
	return nil, fmt.Sprintf("%s can use row.* only when the plan has exactly one data block; it has %d (%s). Choose one with `data = \"...\"` in a scenario.", who, len(l.data), strings.Join(mapKeys(l.data), ", "))
}

// usesRoot reports whether any attribute refers to the given root variable.
func usesRoot(attrs hcl.Attributes, root string) bool {
	for _, a := range attrs {
		for _, t := range a.Expr.Variables() {
			if t.RootName() == root {
				return true
			}
		}
	}
	return false
}
