package run

import (
	"github.com/tressi/tressi/exec/internal/session"
	"github.com/tressi/tressi/results"
)

// Captured is a session's captured values by capture slot, as every kind
// of session keeps them (the loop's HTTP and WebSocket sessions, the
// fasthttp engine's runner): filled by the one capture rule (Succeeded,
// then a step's FillCaptures or FillFrame), read by later requests as
// captured.NAME. The buffers are reused from session to session.
type Captured struct {
	Values [][]byte // by slot
	Have   []bool   // by slot: captured, and not empty
}

// Reset readies n slots for a new session, each missing.
func (c *Captured) Reset(n int) {
	for len(c.Values) < n {
		c.Values = append(c.Values, nil)
		c.Have = append(c.Have, false)
	}
	for i := range c.Have {
		c.Values[i], c.Have[i] = c.Values[i][:0], false
	}
}

// HasAll reports whether every slot in needs holds a value: a request
// missing one is not sent (capture_failed).
func (c *Captured) HasAll(needs []int) bool {
	for _, n := range needs {
		if n >= len(c.Have) || !c.Have[n] {
			return false
		}
	}
	return true
}

// Succeeded is the one success rule of a step's answer, for its captures
// and exit_if_failed, on every engine and every kind of step: an answer
// came (answered: a complete HTTP response, a matched frame or reply) and
// its status is one its request expects (expect, default 200–399), as a
// row is ok (docs/contracts.md).
func Succeeded(pr *PreparedRequest, status int, answered bool) bool {
	return answered && results.ExpectsStatus(pr.Spec.Expect, status)
}

// FillCaptures fills an HTTP request step's captures into c from resp,
// its response; ok is Succeeded's verdict, and when false (nil resp: no
// response) every capture of the step is missing. Cookie captures are
// CookieCapture's.
func (st *Step) FillCaptures(c *Captured, resp session.CaptureSource, ok bool) {
	for i := range st.Capture {
		cp := &st.Capture[i]
		if !ok {
			c.Have[cp.Index] = false
			continue
		}
		c.Values[cp.Index], c.Have[cp.Index] = cp.Extract(c.Values[cp.Index][:0], resp)
	}
}

// FillMessage fills the captures of a step answered by a message (a
// WebSocket frame, a gRPC stream's reply) into c: regex reads raw, json
// paths read json (a frame is both; a reply's json is its protojson).
// ok is Succeeded's verdict; when false (no answer) each is missing.
func (st *Step) FillMessage(c *Captured, raw, json []byte, ok bool) {
	for i := range st.Message {
		cp := &st.Message[i]
		if !ok {
			c.Have[cp.Index] = false
			continue
		}
		src := json
		if cp.re != nil {
			src = raw
		}
		c.Values[cp.Index], c.Have[cp.Index] = cp.Extract(c.Values[cp.Index][:0], src)
	}
}
