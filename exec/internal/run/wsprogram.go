package run

import (
	"bytes"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/tressi/tressi/compile"
	"github.com/tressi/tressi/exec/internal/session"
	"github.com/tressi/tressi/plan"
	"github.com/tressi/tressi/results"
)

// wsAwait is a compiled await.
type wsAwait struct {
	Json    []wsMatch
	re      *regexp.Regexp
	Timeout int64
	status  []session.PathElem // nil: no status path
}

type wsMatch struct {
	path  []session.PathElem
	Value *compile.Splice
}

// wsCapture takes a value from the matched frame into a capture slot.
type wsCapture struct {
	Index      int
	path       []session.PathElem // json; with collect, the part before [*]
	rest       []session.PathElem // json with [*]: the part after it
	collect    bool
	re         *regexp.Regexp
	structured bool
}

// newWSPrograms prepares the schedule's WebSocket entries (nil for others).
func newWSPrograms(ex *Executor) ([]*Program, error) {
	s := ex.S
	progs := make([]*Program, len(s.Entries))
	for i := range s.Entries {
		e := &s.Entries[i]
		if !e.WebSocket {
			continue
		}
		p, err := newProgram(ex, i, nil)
		if err != nil {
			return nil, fmt.Errorf("scenario %q: %w", e.Name, err)
		}
		if p.Target < 0 {
			return nil, fmt.Errorf("scenario %q: no connect step", e.Name)
		}
		progs[i] = p
	}
	return progs, nil
}

// newWSAwait compiles step name's await a: its paths parsed, its regex
// compiled, its timeout defaulted to the request's (5 s without one);
// needs gains the capture slots its values use.
func newWSAwait(name string, a *compile.Await, req *PreparedRequest, needs []int) (*wsAwait, []int, error) {
	ca := &wsAwait{Timeout: int64(a.Timeout)}
	if ca.Timeout <= 0 && req != nil {
		ca.Timeout = int64(req.Timeout)
	}
	if ca.Timeout <= 0 {
		ca.Timeout = int64(5 * time.Second)
	}
	for j := range a.JSON {
		path, err := session.ParseJSONPath(a.JSON[j].Path)
		if err != nil {
			return nil, nil, fmt.Errorf("step %q await: %w", name, err)
		}
		ca.Json = append(ca.Json, wsMatch{path: path, Value: &a.JSON[j].Value})
		needs = appendNeeds(needs, &a.JSON[j].Value)
	}
	if a.Regex != "" {
		re, err := regexp.Compile(a.Regex)
		if err != nil {
			return nil, nil, fmt.Errorf("step %q await regex: %w", name, err)
		}
		ca.re = re
	}
	if a.Status != "" {
		path, err := session.ParseJSONPath(a.Status)
		if err != nil {
			return nil, nil, fmt.Errorf("step %q await status: %w", name, err)
		}
		ca.status = path
	}
	return ca, needs, nil
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
	wc := wsCapture{Index: c.Index}
	switch c.Kind {
	case compile.CaptureJSON:
		head, rest, collect := strings.Cut(c.Expr, "[*]")
		var err error
		if wc.path, err = session.ParseJSONPath(head); err != nil {
			return wc, fmt.Errorf("capture %q: %w", c.Name, err)
		}
		if collect {
			wc.collect = true
			if wc.rest, err = session.ParseJSONPath(strings.TrimPrefix(rest, ".")); err != nil {
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

// Extract appends the captured value from frame to dst.
func (c *wsCapture) Extract(dst, frame []byte) ([]byte, bool) {
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
		v, ok := session.JSONCollect(frame, c.path, c.rest)
		return append(dst, v...), ok
	}
	raw, ok := session.FrameFind(frame, c.path)
	if !ok {
		return dst, false
	}
	txt, ok := session.JSONText(raw, nil)
	if !ok || len(txt) == 0 {
		return dst, false
	}
	return append(dst, txt...), true
}

// Want renders the await's json values with v into dst, reusing its
// buffers: what a frame or a reply must hold to answer it.
func (st *Step) Want(dst [][]byte, v *compile.Values) [][]byte {
	n := 0
	for i := range st.Await.Json {
		var buf []byte
		if n < cap(dst) {
			buf = dst[:n+1][n][:0]
		}
		dst = append(dst[:n], st.Await.Json[i].Value.Append(buf, v))
		n++
	}
	return dst[:n]
}

// Matches reports whether frame answers the await; want holds the
// session's rendered values, one per json match.
func (a *wsAwait) Matches(frame []byte, want [][]byte, scratch []byte) bool {
	for i := range a.Json {
		raw, ok := session.FrameFind(frame, a.Json[i].path)
		if !ok {
			return false
		}
		txt, ok := session.JSONText(raw, scratch)
		if !ok || !bytes.Equal(txt, want[i]) {
			return false
		}
	}
	if a.re != nil && !a.re.Match(frame) {
		return false
	}
	return true
}

// StatusOf is the row's status from the matched frame: the number at the
// status path, 200 when the path is absent (a frame without a code
// answered: Tinode's meta and data), or 200 without a status path.
func (a *wsAwait) StatusOf(frame []byte) uint16 {
	if a.status == nil {
		return 200
	}
	raw, ok := session.FrameFind(frame, a.status)
	if !ok {
		return 200
	}
	n, err := strconv.Atoi(string(bytes.Trim(raw, `"`)))
	if err != nil || n < 0 || n > 65535 {
		return 0
	}
	return uint16(n)
}

// WSRow is a row of a WebSocket step.
func WSRow(k uint64, ep uint16, sched, sent, done int64, status uint16, kind results.ErrorKind, out, in int64) results.Row {
	r := results.Row{Slot: k, Scheduled: sched, Sent: sent, Latency: -1, Service: -1, Endpoint: ep, Status: status,
		Error: kind, BytesOut: ClampU32(out), BytesIn: ClampU32(in)}
	if done >= 0 && (kind == results.None) {
		r.Latency = done - sched
		if sent >= 0 {
			r.Service = done - sent
		}
	}
	return r
}
