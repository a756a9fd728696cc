package exec

import (
	"bytes"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/tressi/tressi/compile"
	"github.com/tressi/tressi/plan"
	"github.com/tressi/tressi/results"
)

// wsProgram is a WebSocket scenario made ready to run: its steps with their
// prepared requests, compiled awaits and captures. Sessions share it
// read-only; each keeps only a cursor into it.
type wsProgram struct {
	entry    int
	name     string
	steps    []wsStep
	captures int
	target   int
	connect  int   // the connect step's index: HTTP steps come before it
	rows     int64 // rows a session records (compile.SessionRows)
}

// wsStep is one step of a wsProgram.
type wsStep struct {
	kind     plan.StepKind
	spec     *compile.Step
	id       int // position in the program, for seeded pauses
	req      *preparedRequest
	ep       uint16
	repeat   int
	await    *wsAwait
	skip     *regexp.Regexp // skip_if: frames it matches are not sent
	exit     bool           // exit_if_failed: a failed answer ends the session
	capture  []wsCapture
	needs    []int
	each     []wsStep // for_each
	rowsEach int64    // for_each: rows of one iteration
	// http is an HTTP step before the connect, as an HTTP scenario's step
	// (its request goes through the loop's pool: wsprelude_linux.go).
	http *sessionStep
}

// wsAwait is a compiled await.
type wsAwait struct {
	json    []wsMatch
	re      *regexp.Regexp
	timeout int64
	status  []pathElem // nil: no status path
}

type wsMatch struct {
	path  []pathElem
	value *compile.Splice
}

// wsCapture takes a value from the matched frame into a capture slot.
type wsCapture struct {
	index      int
	path       []pathElem // json; with collect, the part before [*]
	rest       []pathElem // json with [*]: the part after it
	collect    bool
	re         *regexp.Regexp
	structured bool
}

// newWSPrograms prepares the schedule's WebSocket entries (nil for others).
func newWSPrograms(ex *executor) ([]*wsProgram, error) {
	s := ex.s
	progs := make([]*wsProgram, len(s.Entries))
	for i := range s.Entries {
		e := &s.Entries[i]
		if !e.WebSocket {
			continue
		}
		p := &wsProgram{entry: i, name: e.Name, rows: compile.SessionRows(e), target: -1}
		id := 0
		steps, err := p.build(ex, e.Steps, &id)
		if err != nil {
			return nil, fmt.Errorf("scenario %q: %w", e.Name, err)
		}
		p.steps = steps
		if p.target < 0 {
			return nil, fmt.Errorf("scenario %q: no connect step", e.Name)
		}
		progs[i] = p
	}
	return progs, nil
}

func (p *wsProgram) build(ex *executor, steps []compile.Step, id *int) ([]wsStep, error) {
	var out []wsStep
	for i := range steps {
		st := &steps[i]
		ws := wsStep{kind: st.Kind, spec: st, id: *id, repeat: max(st.Repeat, 1)}
		*id++
		if st.Kind == plan.StepConnect {
			p.connect = i
		}
		if st.Kind == plan.StepHTTP && st.Request >= 0 {
			ss, err := newSessionStep(ex, st)
			if err != nil {
				return nil, err
			}
			ws.http = &ss
			p.captures = max(p.captures, ss.slots())
		}
		if st.Request >= 0 {
			ws.req = &ex.reqs[st.Request]
			ws.ep = ws.req.endpoint
			if st.Kind == plan.StepConnect {
				p.target = ws.req.spec.Target
			}
			ws.needs = ws.req.spec.CaptureSlots()
		}
		if w := st.WebSocket; w != nil {
			if w.SkipIf != "" {
				re, err := regexp.Compile(w.SkipIf)
				if err != nil {
					return nil, fmt.Errorf("step %q skip_if: %w", st.Name, err)
				}
				ws.skip = re
			}
			ws.exit = w.ExitIfFailed
			if a := w.Await; a != nil {
				ca := &wsAwait{timeout: int64(a.Timeout)}
				if ca.timeout <= 0 && ws.req != nil {
					ca.timeout = int64(ws.req.timeout)
				}
				if ca.timeout <= 0 {
					ca.timeout = int64(5 * time.Second)
				}
				for j := range a.JSON {
					path, err := parseJSONPath(a.JSON[j].Path)
					if err != nil {
						return nil, fmt.Errorf("step %q await: %w", st.Name, err)
					}
					ca.json = append(ca.json, wsMatch{path: path, value: &a.JSON[j].Value})
					ws.needs = appendNeeds(ws.needs, &a.JSON[j].Value)
				}
				if a.Regex != "" {
					re, err := regexp.Compile(a.Regex)
					if err != nil {
						return nil, fmt.Errorf("step %q await regex: %w", st.Name, err)
					}
					ca.re = re
				}
				if a.Status != "" {
					path, err := parseJSONPath(a.Status)
					if err != nil {
						return nil, fmt.Errorf("step %q await status: %w", st.Name, err)
					}
					ca.status = path
				}
				ws.await = ca
			}
			for _, c := range st.Captures {
				wc, err := newWSCapture(c)
				if err != nil {
					return nil, fmt.Errorf("step %q: %w", st.Name, err)
				}
				ws.capture = append(ws.capture, wc)
				p.captures = max(p.captures, c.Index+1)
			}
			if st.Kind == plan.StepForEach {
				nested, err := p.build(ex, w.Steps, id)
				if err != nil {
					return nil, err
				}
				ws.each = nested
				for k := range w.Steps {
					ws.rowsEach += stepRowsOf(&w.Steps[k])
				}
				p.captures = max(p.captures, w.Items+1)
			}
		}
		for _, n := range ws.needs {
			p.captures = max(p.captures, n+1)
		}
		out = append(out, ws)
	}
	return out, nil
}

// connectStep is the program's connect step.
func (p *wsProgram) connectStep() *wsStep { return &p.steps[p.connect] }

func stepRowsOf(st *compile.Step) int64 {
	e := compile.Entry{Steps: []compile.Step{*st}}
	return compile.SessionRows(&e)
}

func appendNeeds(needs []int, sp *compile.Splice) []int {
	for _, h := range sp.Holes {
		if h.Kind == plan.HoleCaptured && h.Index >= 0 {
			found := false
			for _, n := range needs {
				found = found || n == h.Index
			}
			if !found {
				needs = append(needs, h.Index)
			}
		}
	}
	return needs
}

func newWSCapture(c compile.Capture) (wsCapture, error) {
	wc := wsCapture{index: c.Index}
	switch c.Kind {
	case compile.CaptureJSON:
		head, rest, collect := strings.Cut(c.Expr, "[*]")
		var err error
		if wc.path, err = parseJSONPath(head); err != nil {
			return wc, fmt.Errorf("capture %q: %w", c.Name, err)
		}
		if collect {
			wc.collect = true
			if wc.rest, err = parseJSONPath(strings.TrimPrefix(rest, ".")); err != nil {
				return wc, fmt.Errorf("capture %q: after [*]: %w", c.Name, err)
			}
		}
	case compile.CaptureRegex:
		re, err := regexp.Compile(c.Expr)
		if err != nil {
			return wc, fmt.Errorf("capture %q: %w", c.Name, err)
		}
		wc.re = re
	default:
		return wc, fmt.Errorf("capture %q: frames have no headers; capture with json() or regex()", c.Name)
	}
	return wc, nil
}

// extract appends the captured value from frame to dst.
func (c *wsCapture) extract(dst, frame []byte) ([]byte, bool) {
	if c.re != nil {
		m := c.re.FindSubmatchIndex(frame)
		switch {
		case m == nil:
			return dst, false
		case len(m) >= 4 && m[2] >= 0:
			return append(dst, frame[m[2]:m[3]]...), m[3] > m[2]
		default:
			return append(dst, frame[m[0]:m[1]]...), m[1] > m[0]
		}
	}
	if c.collect {
		v, ok := jsonCollect(frame, c.path, c.rest)
		return append(dst, v...), ok
	}
	raw, ok := frameFind(frame, c.path)
	if !ok {
		return dst, false
	}
	txt, ok := jsonText(raw, nil)
	if !ok || len(txt) == 0 {
		return dst, false
	}
	return append(dst, txt...), true
}

// matches reports whether frame answers the await; want holds the
// session's rendered values, one per json match.
func (a *wsAwait) matches(frame []byte, want [][]byte, scratch []byte) bool {
	for i := range a.json {
		raw, ok := frameFind(frame, a.json[i].path)
		if !ok {
			return false
		}
		txt, ok := jsonText(raw, scratch)
		if !ok || !bytes.Equal(txt, want[i]) {
			return false
		}
	}
	if a.re != nil && !a.re.Match(frame) {
		return false
	}
	return true
}

// statusOf is the row's status from the matched frame: the number at the
// status path, 200 when the path is absent (a frame without a code
// answered: Tinode's meta and data), or 200 without a status path.
func (a *wsAwait) statusOf(frame []byte) uint16 {
	if a.status == nil {
		return 200
	}
	raw, ok := frameFind(frame, a.status)
	if !ok {
		return 200
	}
	n, err := strconv.Atoi(string(bytes.Trim(raw, `"`)))
	if err != nil || n < 0 || n > 65535 {
		return 0
	}
	return uint16(n)
}

// Marks: a frame's mark is "tressi" + 8 hex digits of the run's tag + 16
// of its send instant (ns after run start) + 16 of its key (session slot
// << 16 | the session's frame count). A receiver needs nothing else to time
// the delivery, the key says whose message it was, and the tag keeps apart
// messages a server stored from earlier runs (Tinode replays a topic's
// recent messages to every new subscriber).
const (
	markPrefix = "tressi"
	markLen    = len(markPrefix) + 40
)

func appendMark(dst []byte, tag uint32, sent int64, slot uint64, n uint32) []byte {
	dst = append(dst, markPrefix...)
	dst = appendHexN(dst, uint64(tag), 8)
	dst = appendHexN(dst, uint64(sent), 16)
	return appendHexN(dst, slot<<16|uint64(n&0xffff), 16)
}

func appendHexN(dst []byte, v uint64, n int) []byte {
	const digits = "0123456789abcdef"
	for i := (n - 1) * 4; i >= 0; i -= 4 {
		dst = append(dst, digits[(v>>uint(i))&15])
	}
	return dst
}

// findMarks calls fn for every mark of this run (tag) in frame.
func findMarks(frame []byte, tag uint32, fn func(sent int64, key uint64)) {
	for {
		i := bytes.Index(frame, []byte(markPrefix))
		if i < 0 || len(frame)-i < markLen {
			return
		}
		p := frame[i+len(markPrefix):]
		t, ok0 := parseHexN(p, 8)
		sent, ok1 := parseHexN(p[8:], 16)
		key, ok2 := parseHexN(p[24:], 16)
		if ok0 && ok1 && ok2 && uint32(t) == tag {
			fn(int64(sent), key)
			frame = frame[i+markLen:]
		} else {
			frame = frame[i+len(markPrefix):]
		}
	}
}

func parseHexN(b []byte, n int) (uint64, bool) {
	var v uint64
	for _, c := range b[:n] {
		switch {
		case c >= '0' && c <= '9':
			v = v<<4 | uint64(c-'0')
		case c >= 'a' && c <= 'f':
			v = v<<4 | uint64(c-'a'+10)
		default:
			return 0, false
		}
	}
	return v, true
}

// wsRow is a row of a WebSocket step.
func wsRow(k uint64, ep uint16, sched, sent, done int64, status uint16, kind results.ErrorKind, out, in int64) results.Row {
	r := results.Row{Slot: k, Scheduled: sched, Sent: sent, Latency: -1, Service: -1, Endpoint: ep, Status: status,
		Error: kind, BytesOut: clampU32(out), BytesIn: clampU32(in)}
	if done >= 0 && (kind == results.None) {
		r.Latency = done - sched
		if sent >= 0 {
			r.Service = done - sent
		}
	}
	return r
}
