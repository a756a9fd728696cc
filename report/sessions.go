package report

import (
	"fmt"
	"slices"
	"strings"
)

// ScenarioSummary is one scenario's sessions: the rows of its steps that
// share a slot are one session (docs/contracts.md, "results.arrow"). Its steps'
// requests are the per-endpoint rows named "scenario.step".
type ScenarioSummary struct {
	Name string `json:"name"`
	// Steps are the step endpoints in order, so renderers can group the
	// endpoint rows under their scenario.
	Steps    []string `json:"steps"`
	Sessions int64    `json:"sessions"`
	// Completed sessions had every request ok; Failed = Sessions − Completed.
	Completed int64 `json:"completed"`
	Failed    int64 `json:"failed"`
	// Session is the duration of every session, failed ones included: from
	// its first due instant to its last response (or, for a request that got
	// none, the last instant known of it: sent, else due).
	Session            Percentiles `json:"session_ms"`
	RequestsPerSession float64     `json:"requests_per_session"`
}

// session is what the pass keeps of one session until the end: 32 bytes of
// value and an 8-byte key, so with the map's spare capacity up to about 100
// bytes per session. Sessions are finalised only after the last row, because
// nothing in a row says it is its session's last (repeats, and sessions that
// stop early), and rows of one session may come in different batches.
type session struct {
	start, end int64
	requests   uint32
	scenario   uint32
	failed     bool
}

// scenarioTally accumulates one scenario's sessions.
type scenarioTally struct {
	name     string
	steps    []string
	sessions int64
	failed   int64
	requests int64
	duration *latencyHistogram
}

// sessionTracker groups scenario rows into sessions by slot. Sessions never
// span shards, but the tracker does not rely on it: it lives for the whole
// pass over every input.
type sessionTracker struct {
	scenarios []*scenarioTally
	byName    map[string]int
	stepOf    map[string]int // step endpoint → index into scenarios
	open      map[uint64]session
}

func newSessionTracker() *sessionTracker {
	return &sessionTracker{byName: map[string]int{}, stepOf: map[string]int{}, open: map[uint64]session{}}
}

// use registers the scenarios of one input's metadata. Shards of one run
// carry the same scenarios; a step claimed by two scenarios is an error,
// since its rows could not be told apart.
func (st *sessionTracker) use(scenarios map[string][]string) error {
	names := make([]string, 0, len(scenarios))
	for name := range scenarios {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		i, ok := st.byName[name]
		if !ok {
			i = len(st.scenarios)
			st.byName[name] = i
			st.scenarios = append(st.scenarios, &scenarioTally{name: name, steps: scenarios[name], duration: newLatencyHistogram()})
		}
		for _, ep := range scenarios[name] {
			if j, ok := st.stepOf[ep]; ok && j != i {
				return fmt.Errorf("metadata: endpoint %q is a step of both scenario %q and %q", ep, st.scenarios[j].name, name)
			}
			st.stepOf[ep] = i
		}
	}
	return nil
}

// scenarioOf is the scenario index of endpoint name, or -1 when the
// endpoint is no scenario's step.
func (st *sessionTracker) scenarioOf(name string) int32 {
	if i, ok := st.stepOf[name]; ok {
		return int32(i)
	}
	return -1
}

// add folds one row of scenario sc into its slot's session. end is the
// row's last known instant and ok whether the request succeeded.
func (st *sessionTracker) add(sc int32, slot uint64, due, end int64, ok bool) error {
	s, seen := st.open[slot]
	if !seen {
		s = session{start: due, end: end, scenario: uint32(sc)}
	} else if s.scenario != uint32(sc) {
		return st.mixed(slot, s.scenario, uint32(sc))
	}
	s.start = min(s.start, due)
	s.end = max(s.end, end)
	s.requests++
	s.failed = s.failed || !ok
	st.open[slot] = s
	return nil
}

// mixed is the error of a slot with rows of two scenarios.
func (st *sessionTracker) mixed(slot uint64, a, b uint32) error {
	return fmt.Errorf("slot %d has rows of scenarios %q and %q, but a slot is one session: the file is damaged", slot, st.scenarios[a].name, st.scenarios[b].name)
}

// summaries finalises every session and reports the scenarios by name. A
// scenario of the metadata without sessions is kept: that it never ran is
// worth seeing.
func (st *sessionTracker) summaries() []ScenarioSummary {
	for _, s := range st.open {
		sc := st.scenarios[s.scenario]
		sc.sessions++
		sc.requests += int64(s.requests)
		if s.failed {
			sc.failed++
		}
		sc.duration.Record(s.end - s.start)
	}
	clear(st.open)
	var out []ScenarioSummary
	for _, sc := range st.scenarios {
		out = append(out, ScenarioSummary{
			Name: sc.name, Steps: sc.steps, Sessions: sc.sessions,
			Completed: sc.sessions - sc.failed, Failed: sc.failed,
			Session:            sc.duration.Percentiles(),
			RequestsPerSession: share(sc.requests, sc.sessions),
		})
	}
	slices.SortFunc(out, func(a, b ScenarioSummary) int { return strings.Compare(a.Name, b.Name) })
	return out
}
