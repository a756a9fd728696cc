package run

import (
	"fmt"

	"github.com/tressi/tressi/compile"
	"github.com/tressi/tressi/grpc/schema"
)

// scenarios is what the engines need to run HTTP scenarios' sessions:
// each such entry's Program.
type scenarios struct {
	ByEntry []*Program // nil for endpoint and WebSocket entries
}

// NewScenarios prepares the schedule's scenario entries; nil when it has
// none. Capture regexes are compiled here, once per run.
func NewScenarios(ex *Executor) (*scenarios, error) {
	s := ex.S
	sc := &scenarios{ByEntry: make([]*Program, len(s.Entries))}
	schemas := map[int]*schema.Schema{}
	found := false
	for i := range s.Entries {
		e := &s.Entries[i]
		if !e.Scenario || e.WebSocket {
			continue // WebSocket sessions are the loop's WebSocket part's (wsloop_linux.go)
		}
		found = true
		p, err := newProgram(ex, i, schemas)
		if err != nil {
			return nil, fmt.Errorf("scenario %q %w", e.Name, err)
		}
		sc.ByEntry[i] = p
	}
	if !found {
		return nil, nil
	}
	return sc, nil
}

// Entry is entry i made ready when it is an HTTP scenario; nil otherwise.
func (sc *scenarios) Entry(i int) *Program {
	if sc == nil {
		return nil
	}
	return sc.ByEntry[i]
}

// ScenarioSteps names each scenario's step endpoints in order, for the
// results' metadata: reports group a slot's rows of these into a session.
func ScenarioSteps(s *compile.Schedule) map[string][]string {
	var m map[string][]string
	for _, e := range s.Entries {
		if !e.Scenario {
			continue
		}
		if m == nil {
			m = map[string][]string{}
		}
		for _, st := range e.Steps {
			m[e.Name] = append(m[e.Name], st.Name)
		}
	}
	return m
}
