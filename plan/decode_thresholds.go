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
	rate, attr, d = l.numberAttr(attrs, "check_rate")
	diags = append(diags, d...)
	if attr != nil && (rate <= 0 || rate > 1) {
		diags = append(diags, attrError(attr, "Invalid check_rate", fmt.Sprintf("check_rate is the fraction of checks that must hold: above 0 and at most 1, such as 0.99 (got %g).", rate)))
	} else if attr != nil {
		t.CheckRate = rate
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
	}{{"p50", &t.P50}, {"p90", &t.P90}, {"p95", &t.P95}, {"p99", &t.P99}, {"p999", &t.P999}, {"max", &t.Max}} {
		v, attr, d := l.durationAttr(attrs, p.name)
		diags = append(diags, d...)
		if attr != nil && v <= 0 {
			diags = append(diags, attrError(attr, "Invalid "+p.name, fmt.Sprintf("%s is a latency limit and must be greater than zero, such as \"250ms\".", p.name)))
		} else if attr != nil {
			*p.dst = v
		}
	}
	diags = append(diags, l.decodeLiveLatency(attrs, t)...)
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

// Defaults of the live latency judgement.
const (
	DefaultLiveMinCount = 100
)

// decodeLiveLatency reads live_window, live_delay and live_min_count: the
// latency limits judged live over a sliding window.
func (l *loader) decodeLiveLatency(attrs hcl.Attributes, t *Thresholds) hcl.Diagnostics {
	window, wattr, diags := l.durationAttr(attrs, "live_window")
	if wattr != nil && window <= 0 {
		diags = append(diags, attrError(wattr, "Invalid live_window", fmt.Sprintf("live_window is how far back the live latency limits look and must be greater than zero, such as \"10s\" (got %v).", window)))
	} else if wattr != nil {
		t.LiveWindow = window
		if t.P50 == 0 && t.P90 == 0 && t.P95 == 0 && t.P99 == 0 && t.P999 == 0 && t.Max == 0 {
			diags = append(diags, attrError(wattr, "Live window without a latency limit", "live_window judges the latency limits (p50, p90, p95, p99, p999, max) live; set one of them, or remove live_window."))
		}
	}
	delay, dattr, d := l.durationAttr(attrs, "live_delay")
	diags = append(diags, d...)
	switch {
	case dattr != nil && delay < 0:
		diags = append(diags, attrError(dattr, "Invalid live_delay", fmt.Sprintf("live_delay is how long after the start the live latency limits wait and cannot be negative (got %v).", delay)))
	case dattr != nil:
		t.LiveDelay = delay
	default:
		t.LiveDelay = t.LiveWindow // judge a full window first
	}
	count, cattr, d := l.intAttr(attrs, "live_min_count")
	diags = append(diags, d...)
	switch {
	case cattr != nil && count < 1:
		diags = append(diags, attrError(cattr, "Invalid live_min_count", fmt.Sprintf("live_min_count is how many responses the window needs before it is judged: a whole number > 0 (got %d).", count)))
	case cattr != nil:
		t.LiveMinCount = count
	default:
		t.LiveMinCount = DefaultLiveMinCount
	}
	if wattr == nil {
		for _, a := range []*hcl.Attribute{dattr, cattr} {
			if a != nil {
				diags = append(diags, attrError(a, "Live setting without live_window", a.Name+" tunes the live latency limits, which only live_window turns on; set live_window = \"10s\", or remove "+a.Name+"."))
			}
		}
		t.LiveDelay, t.LiveMinCount = 0, 0
	}
	return diags
}
