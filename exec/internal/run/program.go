package run

import (
	"fmt"
	"regexp"

	"github.com/tressi/tressi/compile"
	"github.com/tressi/tressi/exec/internal/session"
	"github.com/tressi/tressi/grpc/schema"
	"github.com/tressi/tressi/plan"
)

// Program is a scenario made ready to run, whatever its steps speak: HTTP
// requests, gRPC calls and streams, WebSocket frames. It is compiled once
// per run (requests prepared, regexes compiled, JSON paths parsed) into
// flat slices that every session shares read-only, keeping only a cursor
// into them, and every engine executes it: the loop's HTTP sessions
// (loopsession_linux.go, grpcstream_linux.go; a WebSocket scenario's HTTP
// steps before its connect too) and WebSocket sessions (wsstep_linux.go),
// the fasthttp engine's runner (fast/session.go).
type Program struct {
	Entry    int
	Name     string
	Steps    []Step
	Captures int  // capture slots of a session
	OwnConn  bool // connection = "session": each session dials its own (never a WebSocket scenario's HTTP steps)
	// A WebSocket scenario's connect step: its target (-1: no connect)
	// and its index (HTTP steps come before it).
	Target, Connect int
}

// Step is one step of a Program; its Kind says which of its fields it
// uses. Every step may have a request, repeats, a think time and the
// capture slots its request needs.
type Step struct {
	Kind   plan.StepKind
	Spec   *compile.Step
	Id     int              // position in the program, for seeded pauses
	Req    *PreparedRequest // nil: no request (think, hold, for_each, a half-close)
	Ep     uint16
	Repeat int
	Think  int64
	Needs  []int

	// An HTTP request step's captures, read from its response. What they
	// read: the loop keeps a response's head, or its body up to
	// session.CaptureBodyLimit, only when they do; ReadsCookies: a
	// cookie() capture reads the session's jar.
	Capture                            []session.Capturer
	ReadsHead, ReadsBody, ReadsCookies bool

	// A step answered by a message, a WebSocket frame or a gRPC stream's
	// reply: the await that recognises it (nil: done once sent) and the
	// captures taken from it.
	Await   *wsAwait
	Message []wsCapture

	// A WebSocket step's: skip_if (frames it matches are not sent),
	// exit_if_failed (a failed answer ends the session), and for_each's
	// nested steps.
	Skip *regexp.Regexp
	Exit bool
	Each []Step

	// Call is a gRPC stream's step: what kind of stream, how its reply
	// decodes (grpcstream.go).
	Call *CallStep
}

// Rows reports whether the step records a row per repeat (a stream's
// open and half-close, a think, a hold and a for_each record none).
func (st *Step) Rows() bool { return st.Kind.Rows() }

// programCompiler compiles one scenario's steps into its Program.
type programCompiler struct {
	ex      *Executor
	p       *Program
	id      int                    // the next step's Id
	schemas map[int]*schema.Schema // each gRPC target's, read once per run
	stream  *StreamCounts          // the last open step's, for the steps after it
}

// newProgram compiles entry i, a scenario.
func newProgram(ex *Executor, i int, schemas map[int]*schema.Schema) (*Program, error) {
	e := &ex.S.Entries[i]
	own := e.Connection == compile.ConnectionSession && !e.WebSocket // a WebSocket session's HTTP steps use the pool
	p := &Program{Entry: i, Name: e.Name, OwnConn: own, Target: -1}
	pc := programCompiler{ex: ex, p: p, schemas: schemas}
	steps, err := pc.steps(e.Steps)
	if err != nil {
		return nil, err
	}
	p.Steps = steps
	return p, nil
}

func (pc *programCompiler) steps(specs []compile.Step) ([]Step, error) {
	out := make([]Step, 0, len(specs))
	for i := range specs {
		st, err := pc.step(&specs[i], i)
		if err != nil {
			return nil, err
		}
		out = append(out, st)
	}
	return out, nil
}

// step compiles one step: its request and HTTP captures, its gRPC stream
// part, or its WebSocket part; the program's capture slots grow to what
// it reaches.
func (pc *programCompiler) step(sp *compile.Step, i int) (Step, error) {
	p := pc.p
	st := Step{Kind: sp.Kind, Spec: sp, Id: pc.id, Repeat: max(sp.Repeat, 1), Think: int64(max(sp.Think, 0))}
	pc.id++
	if sp.Request >= 0 {
		st.Req = &pc.ex.Reqs[sp.Request]
		st.Ep = st.Req.Endpoint
		st.Needs = st.Req.Spec.CaptureSlots()
	}
	if sp.Kind == plan.StepConnect {
		p.Connect = i
		if st.Req != nil {
			p.Target = st.Req.Spec.Target
		}
	}
	var err error
	switch {
	case sp.Kind == plan.StepHTTP:
		err = st.httpCaptures(sp)
	case sp.Kind.Call():
		st.Call, err = newCallStep(pc.ex, sp, &st, pc.schemas, &pc.stream)
	case sp.WebSocket != nil:
		err = pc.webSocket(sp, &st)
	}
	if err != nil {
		return st, err
	}
	p.Captures = max(p.Captures, st.slots())
	return st, nil
}

// httpCaptures compiles the captures an HTTP step takes from its response.
func (st *Step) httpCaptures(sp *compile.Step) error {
	for _, c := range sp.Captures {
		cp, err := session.NewCapturer(c)
		if err != nil {
			return fmt.Errorf("step %q: %w", sp.Name, err)
		}
		st.Capture = append(st.Capture, cp)
		st.ReadsBody = st.ReadsBody || cp.ReadsBody()
		st.ReadsHead = st.ReadsHead || !cp.ReadsBody()
		st.ReadsCookies = st.ReadsCookies || c.Kind == compile.CaptureCookie
	}
	return nil
}

// messageParts compiles what a step answered by a message has: its await
// (needs gains the slots its values use) and its captures.
func (st *Step) messageParts(sp *compile.Step) error {
	if w := sp.WebSocket; w != nil && w.Await != nil {
		a, needs, err := newWSAwait(sp.Name, w.Await, st.Req, st.Needs)
		if err != nil {
			return err
		}
		st.Await, st.Needs = a, needs
	}
	for _, c := range sp.Captures {
		wc, err := newWSCapture(c)
		if err != nil {
			return fmt.Errorf("step %q: %w", sp.Name, err)
		}
		st.Message = append(st.Message, wc)
	}
	return nil
}

// webSocket compiles a WebSocket step's part: skip_if, exit_if_failed,
// its await and captures, a for_each's nested steps.
func (pc *programCompiler) webSocket(sp *compile.Step, st *Step) error {
	w := sp.WebSocket
	if w.SkipIf != "" {
		re, err := regexp.Compile(w.SkipIf)
		if err != nil {
			return fmt.Errorf("step %q skip_if: %w", sp.Name, err)
		}
		st.Skip = re
	}
	st.Exit = w.ExitIfFailed
	if err := st.messageParts(sp); err != nil {
		return err
	}
	if sp.Kind != plan.StepForEach {
		return nil
	}
	nested, err := pc.steps(w.Steps)
	if err != nil {
		return err
	}
	st.Each = nested
	pc.p.Captures = max(pc.p.Captures, w.Items+1)
	return nil
}

// slots is how many capture slots the step's captures and needs reach.
func (st *Step) slots() int {
	n := 0
	for i := range st.Capture {
		n = max(n, st.Capture[i].Index+1)
	}
	for i := range st.Message {
		n = max(n, st.Message[i].Index+1)
	}
	for _, i := range st.Needs {
		n = max(n, i+1)
	}
	return n
}

// ConnectStep is a WebSocket program's connect step.
func (p *Program) ConnectStep() *Step { return &p.Steps[p.Connect] }
