package plan

import (
	"fmt"
	"time"

	"github.com/hashicorp/hcl/v2"
)

func (l *loader) decodeThresholdsBlock(b *hcl.Block) (*Thresholds, hcl.Diagnostics) {
	content, diags := b.Body.Content(thresholdsSchema)
	t := &Thresholds{Abort: true, DeclRange: b.DefRange}
	attrs := content.Attributes

	rate, attr, d := l.numberAttr(attrs, "error_rate")
	diags = append(diags, d...)
	if attr != nil && (rate <= 0 || rate > 1) {
		diags = append(diags, attrError(attr, "Invalid error_rate", fmt.Sprintf("error_rate is a fraction of requests: it must be above 0 and at most 1, such as 0.05 for 5%% (got %g).", rate)))
	} else if attr != nil {
		t.ErrorRate = rate
	}
	count, attr, d := l.intAttr(attrs, "error_count")
	diags = append(diags, d...)
	if attr != nil && count <= 0 {
		diags = append(diags, attrError(attr, "Invalid error_count", fmt.Sprintf("error_count must be a whole number > 0 (got %d); remove it to set no limit.", count)))
	} else if attr != nil {
		t.ErrorCount = count
	}
	t.StatusCodes, d = l.statusAttr(attrs, "status_codes")
	diags = append(diags, d...)

	for _, p := range []struct {
		name string
		dst  *time.Duration
	}{{"p50", &t.P50}, {"p90", &t.P90}, {"p95", &t.P95}, {"p99", &t.P99}, {"p999", &t.P999}} {
		v, attr, d := l.durationAttr(attrs, p.name)
		diags = append(diags, d...)
		if attr != nil && v <= 0 {
			diags = append(diags, attrError(attr, "Invalid "+p.name, fmt.Sprintf("%s is a latency limit and must be greater than zero, such as \"250ms\".", p.name)))
		} else if attr != nil {
			*p.dst = v
		}
	}
	abort, set, d := l.boolAttr(attrs, "abort")
	diags = append(diags, d...)
	if set {
		t.Abort = abort
	}
	allow, set, d := l.boolAttr(attrs, "allow_all_failed")
	diags = append(diags, d...)
	if set {
		t.AllowAllFailed = allow
	}
	return t, diags
}
