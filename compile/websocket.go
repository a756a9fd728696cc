package compile

import (
	"time"

	"github.com/hashicorp/hcl/v2"

	"github.com/tressi/tressi/plan"
)

// WebSocketStep is a compiled WebSocket step: what plan.WebSocket says,
// with templates made splices and the for_each's steps compiled.
type WebSocketStep struct {
	Subprotocols []string `json:",omitempty"`
	Binary       bool     `json:",omitempty"`
	Wait         bool
	Marked       bool   `json:",omitempty"`
	SkipIf       string `json:",omitempty"` // a regexp: frames it matches are not sent
	ExitIfFailed bool   `json:",omitempty"` // a failed answer ends the session
	Await        *Await `json:",omitempty"`
	Hold         time.Duration
	CloseCode    int
	// ForEach: Items is the capture slot holding the JSON array, Max the
	// iterations every session is scheduled for, Steps what each runs.
	Items int
	Max   int
	Steps []Step `json:",omitempty"`
}

// Await is a compiled await: JSON path matches with per-request values.
type Await struct {
	JSON    []JSONMatch `json:",omitempty"`
	Regex   string      `json:",omitempty"`
	Timeout time.Duration
	Status  string `json:",omitempty"`
}

// JSONMatch is one path = value test of an await.
type JSONMatch struct {
	Path  string
	Value Splice
}

// buildWebSocketStep compiles the WebSocket part of a step.
func buildWebSocketStep(st *plan.Step, scope requestScope, nextID *uint32, build func(*plan.Step) Step) (*WebSocketStep, hcl.Diagnostics) {
	w := st.WebSocket
	if w == nil {
		return nil, nil
	}
	var diags hcl.Diagnostics
	out := &WebSocketStep{Subprotocols: w.Subprotocols, Binary: w.Binary, Wait: w.Wait, Marked: w.Marked,
		SkipIf: w.SkipIf, ExitIfFailed: w.ExitIfFailed, Hold: w.Hold, CloseCode: w.CloseCode, Items: -1, Max: w.Max}
	out.Await, diags = buildAwait(w.Await, st, scope, nextID)
	if st.Kind == plan.StepForEach {
		if i, ok := scope.captures[w.Items]; ok {
			out.Items = i
		}
		for _, ns := range w.Steps {
			out.Steps = append(out.Steps, build(ns))
		}
	}
	return out, diags
}

// buildAwait compiles an await (nil: none), its values made splices.
func buildAwait(a *plan.Await, st *plan.Step, scope requestScope, nextID *uint32) (*Await, hcl.Diagnostics) {
	if a == nil {
		return nil, nil
	}
	var diags hcl.Diagnostics
	ca := &Await{Regex: a.Regex, Timeout: a.Timeout, Status: a.Status}
	for _, m := range a.JSON {
		sp, d := buildSplice("", m.Value, scope, nextID, st.DeclRange)
		diags = append(diags, d...)
		ca.JSON = append(ca.JSON, JSONMatch{Path: m.Path, Value: sp})
	}
	return ca, diags
}

// buildCallStep compiles what a step naming a gRPC stream holds beyond
// its request: its await, carried as a WebSocket step's is (the same
// matching, on the reply decoded to protojson), so a .tplan holds it as
// it holds those.
func buildCallStep(st *plan.Step, scope requestScope, nextID *uint32) (*WebSocketStep, hcl.Diagnostics) {
	a, diags := buildAwait(st.Call.Await, st, scope, nextID)
	return &WebSocketStep{Wait: true, Await: a, Items: -1}, diags
}

// SessionRows is the number of rows a session of entry e records, whatever
// happens to it: Σ repeat over the steps that record rows, a for_each
// counting its max iterations.
func SessionRows(e *Entry) int64 { return stepRows(e.Steps) }

func stepRows(steps []Step) int64 {
	var n int64
	for i := range steps {
		st := &steps[i]
		switch {
		case st.Kind == plan.StepForEach && st.WebSocket != nil:
			n += int64(st.WebSocket.Max) * stepRows(st.WebSocket.Steps)
		case st.Kind.Rows():
			n += int64(max(st.Repeat, 1))
		}
	}
	return n
}

// Pause is the think time after repeat j of a step in session slot k:
// Think, or when ThinkMax is larger, a value uniform in [Think, ThinkMax]
// drawn from (seed, slot, step id, repeat), so a replay pauses alike.
func (s *Schedule) Pause(st *Step, stepID int, k uint64, j int) time.Duration {
	if st.ThinkMax <= st.Think {
		return st.Think
	}
	span := uint64(st.ThinkMax-st.Think) + 1
	return st.Think + time.Duration(mix(s.Seed, k, uint64(stepID)<<20|uint64(j)|0x7061<<48)%span)
}

// LongestPauses is the most time any session of the schedule spends
// waiting by design: its think times (at their longest), holds and
// for_each iterations, summed over its steps and repeats. A session may
// run that long past its start without overrunning anything.
func (s *Schedule) LongestPauses() time.Duration {
	var longest time.Duration
	for i := range s.Entries {
		longest = max(longest, stepPauses(s.Entries[i].Steps))
	}
	return longest
}

func stepPauses(steps []Step) time.Duration {
	var d time.Duration
	for i := range steps {
		st := &steps[i]
		each := max(st.Think, st.ThinkMax)
		if w := st.WebSocket; w != nil {
			each += w.Hold
			if len(w.Steps) > 0 {
				each += time.Duration(max(w.Max, 0)) * stepPauses(w.Steps)
			}
		}
		d += time.Duration(max(st.Repeat, 1)) * each
	}
	return d
}
