package plan

import (
	"fmt"
	"math"
	"time"

	"github.com/hashicorp/hcl/v2"
)

// capacityWarnings flags plans that cannot carry their own load, and only
// those: a warning on almost every plan teaches users to ignore it.
//
// Open model: by Little's law a target needs rate × time-in-flight
// connections. tressi cannot know how fast the service answers, so it
// judges only against the latency the user states as the target's
// expected_latency; a request that waits for a connection counts the wait
// in its latency, so a pool that is too small shows in the results anyway.
// (Judging against the timeout, as tressi once did, asked for thousands of
// connections where 64 carried the run without an error.)
// Closed model: every user holds a connection while it waits for its
// answer, so more users than connections means users wait on each other.
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
	diags := sessionWarnings(p, peak)
	for _, t := range p.Targets {
		rate := rates[t.Name]
		if t.ExpectedLatency <= 0 || rate <= 0 {
			continue
		}
		inFlight := rate * t.ExpectedLatency.Seconds()
		if float64(t.InFlight()) >= inFlight {
			continue
		}
		need := int(math.Ceil(inFlight / float64(t.InFlight()/t.Connections)))
		carries := float64(t.InFlight()) / t.ExpectedLatency.Seconds()
		diags = append(diags, &hcl.Diagnostic{
			Severity: hcl.DiagWarning,
			Summary:  "Requests will queue for connections",
			Detail: fmt.Sprintf("At the peak, about %.4g requests per second go to target %q. Answering in its expected_latency (%s), about %d are in flight at once (Little's law: rate × latency), but connections = %d carry only about %.4g per second: the rest wait for a connection, and the wait shows as latency. Raise connections to at least %d, or lower the peak rate to %.4g per second.",
				rate, t.Name, t.ExpectedLatency, need, t.Connections, carries, need, math.Floor(carries)),
			Subject: t.DeclRange.Ptr(),
		})
	}
	return diags
}

// entryShares says what share of the slots an endpoint or scenario of a
// given weight gets, as the load selects them, and the weights' total.
func entryShares(p *Plan) (share func(weight int) float64, total float64) {
	entries := float64(len(p.Endpoints) + len(p.Scenarios))
	for _, e := range p.Endpoints {
		total += float64(e.Weight)
	}
	for _, s := range p.Scenarios {
		total += float64(s.Weight)
	}
	return func(weight int) float64 {
		if p.Load.Selection == SelectRoundRobin {
			return 1 / entries
		}
		return float64(weight) / total
	}, total
}

// peakTargetRates estimates the requests per second each target receives at
// the peak arrival rate, following how the load selects endpoints and
// scenarios and honouring endpoints' max_rate.
func peakTargetRates(p *Plan, peak float64) map[string]float64 {
	share, _ := entryShares(p)
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
		if s.connect() != nil {
			// A WebSocket session holds one connection for its whole life,
			// however many frames it sends: its frames need no connections of
			// their own, and its connections are checked before the run.
			continue
		}
		for _, st := range s.Steps {
			rates[st.Target] += sessions * float64(st.Repeat)
		}
	}
	return rates
}

// sessionWarnings: a WebSocket session holds its connection for its whole
// life, and a target's connections caps the sessions connected at once.
// The pauses a session is sure to take (hold, think) bound its life from
// below, so the sessions started within any span of that length are all
// connected at its end: the most of them, over the load's stages, is the
// fewest connected at once at some instant. More than connections, and
// sessions certainly wait for one another. Answers only lengthen a
// session, so this never warns a plan that would not queue. (A search's
// probes have no fixed stages: it is not judged.)
func sessionWarnings(p *Plan, peak float64) hcl.Diagnostics {
	if p.Load.Search != nil {
		return nil
	}
	share, total := entryShares(p)
	if total == 0 {
		return nil
	}
	held := map[string]float64{}
	rate := map[string]float64{}
	life := map[string]time.Duration{}
	for _, s := range p.Scenarios {
		connect := s.connect()
		if connect == nil {
			continue
		}
		share := share(s.Weight)
		d := sessionPauses(s)
		t := connect.Target
		held[t] += share * mostStartedWithin(p.Load.Stages, d)
		rate[t] += peak * share
		life[t] = max(life[t], d)
	}
	diags := httpSessionWarnings(p, peak, share)
	for _, t := range p.Targets {
		need := math.Ceil(held[t.Name] - 1e-6) // the integral of a whole number of arrivals, give or take rounding
		if need <= float64(t.Connections) {
			continue
		}
		diags = append(diags, &hcl.Diagnostic{
			Severity: hcl.DiagWarning,
			Summary:  "WebSocket sessions will queue for connections",
			Detail: fmt.Sprintf("At the peak, about %.4g WebSocket sessions per second start on target %q, each connected for at least %s (its hold and think pauses), so at some point at least %d are connected at once, but connections = %d: later sessions wait for a connection, and the wait shows in their connect rows (a timeout past the connect step's timeout). Raise connections to at least %d, or lower the peak rate.",
				rate[t.Name], t.Name, life[t.Name], int(need), t.Connections, int(need)),
			Subject: t.DeclRange.Ptr(),
		})
	}
	return diags
}

// mostStartedWithin is the most arrivals of the stages within a span of
// length d, found by trying spans ending at the stages' bounds, those
// bounds plus d, and a fine grid between: a lower bound of the true most
// (each span tried is a real one), close to it.
func mostStartedWithin(stages []Stage, d time.Duration) float64 {
	if d <= 0 || len(stages) == 0 {
		return 0
	}
	var end time.Duration
	ends := []time.Duration{}
	for _, st := range stages {
		end += st.Duration
		ends = append(ends, end, end+d)
	}
	const grid = 4096
	for i := range grid + 1 {
		ends = append(ends, end*time.Duration(i)/grid)
	}
	most := 0.0
	for _, t := range ends {
		most = math.Max(most, arrivalsBy(stages, t)-arrivalsBy(stages, t-d))
	}
	return most
}

// arrivalsBy is how many arrivals the stages make from the start to t: the
// integral of each stage's rate, linear from From to To.
func arrivalsBy(stages []Stage, t time.Duration) float64 {
	n := 0.0
	for _, st := range stages {
		if t <= 0 {
			break
		}
		span := min(t, st.Duration).Seconds()
		whole := st.Duration.Seconds()
		if whole > 0 {
			n += st.From*span + (st.To-st.From)*span*span/(2*whole)
		}
		t -= st.Duration
	}
	return n
}

// connect is a WebSocket scenario's connect step, nil for an HTTP one.
func (s *Scenario) connect() *Step {
	for _, st := range s.Steps {
		if st.Kind == StepConnect {
			return st
		}
	}
	return nil
}

// sessionPauses is the least time a WebSocket session stays connected: its
// holds and think pauses (a for_each's steps count no iteration, since the
// array may be empty).
func sessionPauses(s *Scenario) time.Duration {
	var d time.Duration
	for _, st := range s.Steps {
		think := st.Think
		if think < 0 {
			think = s.Think
		}
		switch {
		case st.Kind == StepHold && st.WebSocket != nil:
			d += st.WebSocket.Hold
		case st.Kind == StepThink, st.Kind == StepSend:
			d += time.Duration(st.Repeat) * max(think, 0)
		}
	}
	return d
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
			conns += t.InFlight()
		}
	}
	if peakUsers <= float64(conns) {
		return nil
	}
	return hcl.Diagnostics{{
		Severity: hcl.DiagWarning,
		Summary:  "Users may queue for connections",
		Detail: fmt.Sprintf("The load peaks at %d concurrent users, but the targets it uses carry %d requests at once in all (connections, times max_streams over HTTP/2), so users will wait for each other's connections and measure that wait as latency. Raise the targets' connections to at least %d, or lower the users.",
			int(peakUsers), conns, int(peakUsers)),
		Subject: p.Load.DeclRange.Ptr(),
	}}
}
