package plan

import (
	"fmt"
	"math"
	"time"

	"github.com/hashicorp/hcl/v2"
)

// httpSessionWarnings: an HTTP scenario whose target has connection =
// "session" gives each session a connection of its own, held from its
// first request to its end, think pauses included (the last step's too:
// the session ends when that pause is over). As for WebSocket sessions
// (sessionWarnings), the sessions started within any span of that length
// are all holding one at its end; more of them than connections, and
// sessions queue for a connection. The queueing shows as latency and as
// requests sent late, which reads like a generator behind schedule: the
// README's Artillery plan at 50 sessions per second, 3 s of think each, on
// 100 connections, was seen so.
func httpSessionWarnings(p *Plan, peak float64, share func(weight int) float64) hcl.Diagnostics {
	modes := map[string]string{}
	for _, t := range p.Targets {
		modes[t.Name] = t.Connection
	}
	held := map[string]float64{}
	rate := map[string]float64{}
	life := map[string]time.Duration{}
	for _, s := range p.Scenarios {
		if s.connect() != nil || len(s.Steps) == 0 {
			continue
		}
		d := httpSessionPauses(s)
		for t := range sessionTargets(s, modes) {
			held[t] += share(s.Weight) * mostStartedWithin(p.Load.Stages, d)
			rate[t] += peak * share(s.Weight)
			life[t] = max(life[t], d)
		}
	}
	var diags hcl.Diagnostics
	for _, t := range p.Targets {
		need := math.Ceil(held[t.Name] - 1e-6)
		if need <= float64(t.Connections) {
			continue
		}
		diags = append(diags, &hcl.Diagnostic{
			Severity: hcl.DiagWarning,
			Summary:  "Sessions will queue for connections",
			Detail: fmt.Sprintf("At the peak, about %.4g sessions per second start on target %q, each holding a connection of its own (connection = \"session\") for at least %s (its think pauses), so at some point at least %d hold one at once, but connections = %d: later sessions wait for a connection, and the wait shows as latency and as requests sent late (which is not the generator falling behind). Raise connections to at least %d, or lower the peak rate, or use connection = \"pool\".",
				rate[t.Name], t.Name, life[t.Name], int(need), t.Connections, int(need)),
			Subject: t.DeclRange.Ptr(),
		})
	}
	return diags
}

// sessionTargets is the set of targets s's sessions hold a connection of
// their own to: its steps' targets whose mode, the scenario's or else the
// target's, is "session".
func sessionTargets(s *Scenario, modes map[string]string) map[string]bool {
	out := map[string]bool{}
	for _, st := range s.Steps {
		mode := s.Connection
		if mode == "" {
			mode = modes[st.Target]
		}
		if mode == ConnectionSession {
			out[st.Target] = true
		}
	}
	return out
}

// httpSessionPauses is the least time an HTTP session lasts: the think
// pause after each of its requests (a step's own, else the scenario's).
func httpSessionPauses(s *Scenario) time.Duration {
	var d time.Duration
	for _, st := range s.Steps {
		think := st.Think
		if think < 0 {
			think = s.Think
		}
		d += time.Duration(max(st.Repeat, 1)) * max(think, 0)
	}
	return d
}
