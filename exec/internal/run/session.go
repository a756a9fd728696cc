package run

import (
	"fmt"

	"github.com/tressi/tressi/compile"
	"github.com/tressi/tressi/exec/internal/session"
	"github.com/tressi/tressi/grpc/schema"
	"github.com/tressi/tressi/plan"
)

// scenarios is what the engines need to run sessions: each scenario
// entry made ready.
type scenarios struct {
	ByEntry []*Scenario // nil for endpoint entries
}

// Scenario is one scenario entry made ready to run.
type Scenario struct {
	Steps    []SessionStep
	Captures int  // capture slots of a session
	OwnConn  bool // connection = "session": each session dials its own
}

// SessionStep is a step with its prepared request, its compiled captures
// and the capture slots its request needs filled.
type SessionStep struct {
	Req     *PreparedRequest
	Repeat  int
	Think   int64
	Capture []session.Capturer
	Needs   []int
	// What the captures read of a response: the loop keeps a response's
	// head, or its body up to captureBodyLimit, only when they do;
	// ReadsCookies: a cookie() capture reads the session's jar.
	ReadsHead, ReadsBody, ReadsCookies bool
	// Kind is plan.StepHTTP, or a gRPC stream's step kind; then Call says
	// how its reply is recognised (grpcstream.go).
	Kind plan.StepKind
	Call *CallStep
}

// Rows reports whether the step records a row per repeat (a stream's
// open and half-close record none).
func (ss *SessionStep) Rows() bool { return ss.Kind.Rows() }

// newSessionStep compiles an HTTP request step of a session, HTTP
// scenario or WebSocket (before its connect) alike: its request, repeats,
// think time, captures and the captured values it needs.
func newSessionStep(ex *Executor, st *compile.Step) (SessionStep, error) {
	ss := SessionStep{Repeat: max(st.Repeat, 1), Think: int64(max(st.Think, 0)), Kind: st.Kind}
	if st.Request < 0 {
		return ss, nil // a stream's half-close: no request of its own
	}
	ss.Req = &ex.Reqs[st.Request]
	for _, c := range st.Captures {
		cp, err := session.NewCapturer(c)
		if err != nil {
			return ss, fmt.Errorf("step %q: %w", st.Name, err)
		}
		ss.Capture = append(ss.Capture, cp)
		ss.ReadsBody = ss.ReadsBody || cp.ReadsBody()
		ss.ReadsHead = ss.ReadsHead || !cp.ReadsBody()
		ss.ReadsCookies = ss.ReadsCookies || c.Kind == compile.CaptureCookie
	}
	ss.Needs = ss.Req.Spec.CaptureSlots()
	return ss, nil
}

// slots is how many capture slots the step's captures and needs reach.
func (ss *SessionStep) slots() int {
	n := 0
	for i := range ss.Capture {
		n = max(n, ss.Capture[i].Index+1)
	}
	for _, i := range ss.Needs {
		n = max(n, i+1)
	}
	if ss.Call != nil {
		for i := range ss.Call.Capture {
			n = max(n, ss.Call.Capture[i].Index+1)
		}
	}
	return n
}

// FillCaptures fills captured and have from resp, the response to a
// step's request, of status (answered false: none came): without a
// complete 2xx/3xx response every capture of the step is missing. The one
// capture rule of every session, on every engine, HTTP and WebSocket.
func (ss *SessionStep) FillCaptures(captured [][]byte, have []bool, resp session.CaptureSource, status int, answered bool) {
	ok := answered && status >= 200 && status <= 399
	for i := range ss.Capture {
		c := &ss.Capture[i]
		if !ok {
			have[c.Index] = false
			continue
		}
		captured[c.Index], have[c.Index] = c.Extract(captured[c.Index][:0], resp)
	}
}

// NewScenarios prepares the schedule's scenario entries; nil when it has
// none. Capture regexes are compiled here, once per run.
func NewScenarios(ex *Executor) (*scenarios, error) {
	s := ex.S
	sc := &scenarios{ByEntry: make([]*Scenario, len(s.Entries))}
	schemas := map[int]*schema.Schema{}
	found := false
	for i := range s.Entries {
		e := &s.Entries[i]
		if !e.Scenario || e.WebSocket {
			continue // WebSocket sessions are the loop's WebSocket part's (wsloop_linux.go)
		}
		found = true
		p := &Scenario{OwnConn: e.Connection == compile.ConnectionSession}
		var stream *StreamCounts // the open step's, for the steps after it
		for i := range e.Steps {
			ss, err := newSessionStep(ex, &e.Steps[i])
			if err == nil && ss.Kind.Call() {
				ss.Call, err = newCallStep(ex, &e.Steps[i], &ss, schemas, &stream)
			}
			if err != nil {
				return nil, fmt.Errorf("scenario %q %w", e.Name, err)
			}
			p.Captures = max(p.Captures, ss.slots())
			p.Steps = append(p.Steps, ss)
		}
		sc.ByEntry[i] = p
	}
	if !found {
		return nil, nil
	}
	return sc, nil
}

// Entry is entry i made ready when it is a scenario; nil otherwise.
func (sc *scenarios) Entry(i int) *Scenario {
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
