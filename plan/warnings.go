package plan

import (
	"fmt"
	"math"
	"time"

	"github.com/hashicorp/hcl/v2"
)

// capacityWarnings flags plans that cannot hold their own load. Open model:
// by Little's law a target needs rate × time-in-flight connections, and a
// request may be in flight for up to its timeout, so fewer connections than
// peak rate × timeout means requests may queue for a connection (and that
// queueing shows up as latency, since latency counts from the due instant).
// Closed model: every user needs a connection, so more users than
// connections means users wait on each other.
func capacityWarnings(p *Plan) hcl.Diagnostics {
	if p.Load == nil {
		return nil
	}
	peak := 0.0
	for _, st := range p.Load.Stages {
		peak = math.Max(peak, math.Max(st.From, st.To))
	}
	if p.Load.Search != nil {
		peak = p.Load.Search.To // the highest probe a search may run
	}
	if p.Load.Model == ModelClosed {
		return closedWarnings(p, peak)
	}
	return openWarnings(p, peak)
}

func openWarnings(p *Plan, peak float64) hcl.Diagnostics {
	rates := peakTargetRates(p, peak)
	var diags hcl.Diagnostics
	for _, t := range p.Targets {
		rate := rates[t.Name]
		inFlight := rate * t.Timeout.Seconds()
		if float64(t.Connections) >= inFlight {
			continue
		}
		fit := time.Duration(float64(t.Connections) / rate * float64(time.Second)).Round(time.Millisecond)
		diags = append(diags, &hcl.Diagnostic{
			Severity: hcl.DiagWarning,
			Summary:  "Requests may queue for connections",
			Detail: fmt.Sprintf("At the peak, about %.4g requests per second go to target %q. If responses take up to its timeout (%s), about %d are in flight at once (Little's law: rate × time in flight), but connections = %d. Raise connections to at least %d, or lower timeout to %s or less if the service answers faster.",
				rate, t.Name, t.Timeout, int(math.Ceil(inFlight)), t.Connections, int(math.Ceil(inFlight)), fit),
			Subject: t.DeclRange.Ptr(),
		})
	}
	return diags
}

// peakTargetRates estimates the requests per second each target receives at
// the peak arrival rate, following how the load selects endpoints and
// scenarios and honouring endpoints' max_rate.
func peakTargetRates(p *Plan, peak float64) map[string]float64 {
	total, entries := 0.0, 0.0
	for _, e := range p.Endpoints {
		total += float64(e.Weight)
		entries++
	}
	for _, s := range p.Scenarios {
		total += float64(s.Weight)
		entries++
	}
	share := func(weight int) float64 {
		if p.Load.Selection == SelectRoundRobin {
			return 1 / entries
		}
		return float64(weight) / total
	}
	rates := map[string]float64{}
	for _, e := range p.Endpoints {
		r := peak * share(e.Weight)
		if e.MaxRate > 0 {
			r = math.Min(r, e.MaxRate)
		}
		rates[e.Target] += r
	}
	for _, s := range p.Scenarios {
		sessions := peak * share(s.Weight)
		for _, st := range s.Steps {
			rates[st.Target] += sessions * float64(st.Repeat)
		}
	}
	return rates
}

func closedWarnings(p *Plan, peakUsers float64) hcl.Diagnostics {
	used := map[string]bool{}
	for _, e := range p.Endpoints {
		used[e.Target] = true
	}
	for _, s := range p.Scenarios {
		for _, st := range s.Steps {
			used[st.Target] = true
		}
	}
	conns := 0
	for _, t := range p.Targets {
		if used[t.Name] {
			conns += t.Connections
		}
	}
	if peakUsers <= float64(conns) {
		return nil
	}
	return hcl.Diagnostics{{
		Severity: hcl.DiagWarning,
		Summary:  "Users may queue for connections",
		Detail: fmt.Sprintf("The load peaks at %d concurrent users, but the targets it uses allow %d connections in all, so users will wait for each other's connections and measure that wait as latency. Raise the targets' connections to at least %d, or lower the users.",
			int(peakUsers), conns, int(peakUsers)),
		Subject: p.Load.DeclRange.Ptr(),
	}}
}
