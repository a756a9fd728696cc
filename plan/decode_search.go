package plan

import (
	"fmt"
	"math"
	"time"

	"github.com/hashicorp/hcl/v2"
)

// Search is a load's search block: instead of stages, tressi apply runs a
// sequence of probes, each a constant rate (open model) or a constant number
// of users (closed model) for Warmup + Hold, and finds the highest value the
// plan's thresholds pass. The sequence grows geometrically from From until a
// probe fails, then bisects until the passing and failing values are within
// Precision of each other.
type Search struct {
	From, To  float64       // the values probed: arrivals per second, or users
	Hold      time.Duration // how long each probe is judged
	Warmup    time.Duration // sent and recorded before each hold, never judged
	Cooldown  time.Duration // pause between probes, so a backlog drains
	Precision float64       // relative: stop when min_failing − max_rate ≤ Precision × max_rate
	MaxProbes int           // the most probes a search runs
	Growth    float64       // the factor between probes until one fails
	DeclRange hcl.Range
}

// Search defaults.
const (
	DefaultSearchHold      = 10 * time.Second
	DefaultSearchWarmup    = 2 * time.Second
	DefaultSearchCooldown  = 2 * time.Second
	DefaultSearchPrecision = 0.05
	DefaultSearchMaxProbes = 12
	DefaultSearchGrowth    = 2.0
	// MaxSearchProbes bounds max_probes: a search is a bounded experiment.
	MaxSearchProbes = 100
)

var searchSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{
		{Name: "from", Required: true},
		{Name: "to", Required: true},
		{Name: "hold"},
		{Name: "warmup"},
		{Name: "cooldown"},
		{Name: "precision"},
		{Name: "max_probes"},
		{Name: "growth"},
	},
}

// decodeSearchInto reads a search block into ld.Search; a second block is
// an error.
func (l *loader) decodeSearchInto(ld *LoadProfile, b *hcl.Block) hcl.Diagnostics {
	if ld.Search != nil {
		return hcl.Diagnostics{{
			Severity: hcl.DiagError,
			Summary:  "Duplicate search block",
			Detail:   fmt.Sprintf("A load has at most one search block; the first is at %s. Merge the two.", ld.Search.DeclRange),
			Subject:  b.DefRange.Ptr(),
		}}
	}
	content, diags := b.Body.Content(searchSchema)
	attrs := content.Attributes
	sr := &Search{Hold: DefaultSearchHold, Warmup: DefaultSearchWarmup, Cooldown: DefaultSearchCooldown,
		Precision: DefaultSearchPrecision, MaxProbes: DefaultSearchMaxProbes, Growth: DefaultSearchGrowth, DeclRange: b.DefRange}
	unit := "arrivals per second"
	if ld.Model == ModelClosed {
		unit = "users"
	}
	for _, v := range []struct {
		name string
		dst  *float64
	}{{"from", &sr.From}, {"to", &sr.To}} {
		n, attr, d := l.numberAttr(attrs, v.name)
		diags = append(diags, d...)
		switch {
		case attr == nil:
		case !(n > 0) || math.IsInf(n, 0):
			diags = append(diags, attrError(attr, "Invalid search "+v.name, fmt.Sprintf("%s is a number of %s above 0 (got %g).", v.name, unit, n)))
		case ld.Model == ModelClosed && n != math.Trunc(n):
			diags = append(diags, attrError(attr, "Fractional users", fmt.Sprintf("In the closed model %s counts users, so it must be a whole number (got %g).", v.name, n)))
		default:
			*v.dst = n
		}
	}
	if sr.From > 0 && sr.To > 0 && sr.To <= sr.From {
		diags = append(diags, attrError(attrs["to"], "Invalid search to",
			fmt.Sprintf("to (%g) must be above from (%g): the search probes values between them.", sr.To, sr.From)))
	}
	for _, v := range []struct {
		name     string
		dst      *time.Duration
		positive bool
	}{{"hold", &sr.Hold, true}, {"warmup", &sr.Warmup, false}, {"cooldown", &sr.Cooldown, false}} {
		d, attr, dd := l.durationAttr(attrs, v.name)
		diags = append(diags, dd...)
		if attr == nil {
			continue
		}
		if v.positive && d <= 0 {
			diags = append(diags, attrError(attr, "Invalid search "+v.name, fmt.Sprintf("%s must be greater than zero, such as \"10s\".", v.name)))
			continue
		}
		*v.dst = d
	}
	if p, attr, d := l.numberAttr(attrs, "precision"); attr != nil || len(d) > 0 {
		diags = append(diags, d...)
		if attr != nil && !(p > 0 && p < 1) {
			diags = append(diags, attrError(attr, "Invalid search precision", fmt.Sprintf("precision is relative: above 0 and below 1, such as 0.05 for 5%% (got %g).", p)))
		} else if attr != nil {
			sr.Precision = p
		}
	}
	if n, attr, d := l.intAttr(attrs, "max_probes"); attr != nil || len(d) > 0 {
		diags = append(diags, d...)
		if attr != nil && (n < 2 || n > MaxSearchProbes) {
			diags = append(diags, attrError(attr, "Invalid search max_probes", fmt.Sprintf("max_probes must be a whole number from 2 to %d (got %d).", MaxSearchProbes, n)))
		} else if attr != nil {
			sr.MaxProbes = int(n)
		}
	}
	if g, attr, d := l.numberAttr(attrs, "growth"); attr != nil || len(d) > 0 {
		diags = append(diags, d...)
		if attr != nil && !(g > 1 && g <= 100) {
			diags = append(diags, attrError(attr, "Invalid search growth", fmt.Sprintf("growth is the factor between probes until one fails: above 1 and at most 100, such as 2 (got %g).", g)))
		} else if attr != nil {
			sr.Growth = g
		}
	}
	ld.Search = sr
	return diags
}

// checkSearchLoad rejects what a search cannot combine with: stages, whose
// place it takes, and a total time beyond what a schedule holds.
func checkSearchLoad(ld *LoadProfile) hcl.Diagnostics {
	var diags hcl.Diagnostics
	if len(ld.Stages) > 0 {
		diags = append(diags, &hcl.Diagnostic{
			Severity: hcl.DiagError,
			Summary:  "Search and stages mixed",
			Detail:   "A search runs its own probes, each at one constant value for warmup + hold; remove the stage blocks, or remove the search block to run the stages.",
			Subject:  ld.Stages[0].DeclRange.Ptr(),
		})
	}
	return diags
}

// checkSearchThresholds requires a pass criterion: a search looks for the
// highest value its probes pass, and without thresholds every probe passes.
// It also warns when the first probe's hold is too short for the highest
// percentile judged to mean much.
func checkSearchThresholds(p *Plan) hcl.Diagnostics {
	t := p.Thresholds
	if t != nil && (t.ErrorRate > 0 || t.ErrorCount > 0 || len(t.StatusCodes) > 0 ||
		t.P50 > 0 || t.P90 > 0 || t.P95 > 0 || t.P99 > 0 || t.P999 > 0) {
		return shortHoldWarning(p)
	}
	return hcl.Diagnostics{{
		Severity: hcl.DiagError,
		Summary:  "Search without thresholds",
		Detail:   "A search finds the highest value whose probes pass the plan's thresholds, so it needs at least one, such as `thresholds {\n  p99 = \"50ms\"\n  error_rate = 0.01\n}`.",
		Subject:  p.Load.Search.DeclRange.Ptr(),
	}}
}

// shortHoldWarning: in the open model the lowest probe judges from × hold
// requests, and a q-th percentile over fewer than 10 / (1 − q) of them rests
// on a handful of samples.
func shortHoldWarning(p *Plan) hcl.Diagnostics {
	sr, t := p.Load.Search, p.Thresholds
	if p.Load.Model == ModelClosed {
		return nil
	}
	q, name := 0.0, ""
	for _, l := range []struct {
		name string
		q    float64
		set  bool
	}{{"p50", 50, t.P50 > 0}, {"p90", 90, t.P90 > 0}, {"p95", 95, t.P95 > 0}, {"p99", 99, t.P99 > 0}, {"p999", 99.9, t.P999 > 0}} {
		if l.set {
			q, name = l.q, l.name
		}
	}
	if q == 0 {
		return nil
	}
	need := 10 / (1 - q/100)
	judged := sr.From * sr.Hold.Seconds()
	if judged >= need {
		return nil
	}
	return hcl.Diagnostics{{
		Severity: hcl.DiagWarning,
		Summary:  "Few requests per probe",
		Detail: fmt.Sprintf("At from = %g req/s, a %v hold judges about %.0f requests, but %s over fewer than %.0f rests on a handful of samples. Lengthen hold to %v or more, or raise from.",
			sr.From, sr.Hold, judged, name, need, time.Duration(need/sr.From*float64(time.Second)).Round(100*time.Millisecond)),
		Subject: sr.DeclRange.Ptr(),
	}}
}
