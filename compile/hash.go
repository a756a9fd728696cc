package compile

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"hash"
	"math"
)

// The schedule hash proves that two schedules send the same requests at the
// same instants. It covers a canonical binary encoding of everything that
// decides that — model, seed, selection, targets' connection settings, the
// request table, entries, data rows, users, think and every slot — and
// nothing else: not the plan's name or file names, not comments, not whether
// the plan was written in HCL or JSON syntax, not thresholds.

// hashVersion changes whenever the encoding below changes.
const hashVersion = "tressi.schedule.v1"

// canon appends canonical encodings: fixed-width little-endian integers and
// length-prefixed byte strings, so no two different values encode alike.
type canon struct{ b []byte }

func (c *canon) u64(v uint64) { c.b = binary.LittleEndian.AppendUint64(c.b, v) }
func (c *canon) i64(v int64)  { c.u64(uint64(v)) }
func (c *canon) f64(v float64) {
	c.u64(math.Float64bits(v))
}
func (c *canon) bool(v bool) {
	if v {
		c.b = append(c.b, 1)
	} else {
		c.b = append(c.b, 0)
	}
}
func (c *canon) bytes(v []byte) { c.u64(uint64(len(v))); c.b = append(c.b, v...) }
func (c *canon) str(v string)   { c.u64(uint64(len(v))); c.b = append(c.b, v...) }

func (c *canon) splice(s *Splice) {
	c.u64(uint64(len(s.Segments)))
	for _, seg := range s.Segments {
		c.bytes(seg)
	}
	c.u64(uint64(len(s.Holes)))
	for _, h := range s.Holes {
		c.u64(uint64(h.Kind))
		c.i64(int64(h.Index))
		c.i64(h.Min)
		c.i64(h.Max)
		c.b = append(c.b, h.escapeFlags())
		c.u64(uint64(h.ID))
	}
}

// encodeHeader is the canonical encoding of everything but the slot stream.
func encodeHeader(s *Schedule) []byte {
	var c canon
	c.str(hashVersion)
	c.u64(uint64(s.Model))
	c.u64(s.Seed)
	c.str(s.Selection)
	c.str(s.Arrival)
	c.i64(int64(s.Duration))
	c.i64(int64(s.Think))
	c.u64(uint64(len(s.Targets)))
	for _, t := range s.Targets {
		c.str(t.Scheme)
		c.str(t.Addr)
		c.str(t.Host)
		c.i64(int64(t.Connections))
		c.str(t.Connection)
		c.i64(int64(t.Timeout))
		c.i64(int64(t.ConnectTimeout))
		c.bool(t.InsecureSkipVerify)
		if t.TLS != (TargetTLS{}) {
			// Only when set, so plans without a tls block keep their hash.
			c.str(t.TLS.CAFile)
			c.str(t.TLS.CertFile)
			c.str(t.TLS.KeyFile)
			c.str(t.TLS.ServerName)
			c.str(t.TLS.MinVersion)
			c.str(t.TLS.MaxVersion)
			c.bool(t.TLS.NoResumption)
		}
		// HTTP/1.1 targets hash as they did before protocols existed.
		if t.Protocol != "" || t.MaxStreams != 0 {
			c.str("protocol")
			c.str(t.Protocol)
			c.i64(int64(t.MaxStreams))
		}
		if t.GRPC != nil {
			c.str("grpc")
			c.bytes(t.GRPC.Protoset)
		}
	}
	c.u64(uint64(len(s.Requests)))
	for i := range s.Requests {
		r := &s.Requests[i]
		c.str(r.Name)
		c.i64(int64(r.Target))
		c.str(r.Method)
		c.splice(&r.URI)
		c.u64(uint64(len(r.Headers)))
		for j := range r.Headers {
			c.str(r.Headers[j].Name)
			c.splice(&r.Headers[j].Value)
		}
		c.splice(&r.Body)
		c.u64(uint64(len(r.Expect)))
		for _, e := range r.Expect {
			c.i64(int64(e))
		}
		if r.GRPC != nil {
			c.str("grpc")
			c.str(r.GRPC.Method)
			c.message(r.GRPC.Message)
		}
		if r.Digest != nil {
			// Only when set, so plans without digest_auth keep their hash.
			c.str("digest")
			c.str(r.Digest.Username)
			c.str(r.Digest.Password)
		}
		if r.Redirects > 0 {
			// Only when set, so plans that follow no redirect keep their hash.
			c.str("redirects")
			c.i64(int64(r.Redirects))
		}
		if len(r.Checks) > 0 {
			// Only when set, so plans without checks keep their hash.
			c.str("checks")
			c.u64(uint64(len(r.Checks)))
			for _, ck := range r.Checks {
				c.str(ck.Name)
				c.u64(uint64(ck.Subject))
				c.str(ck.Path)
				c.u64(uint64(ck.Op))
				c.str(ck.Value)
				c.bool(ck.Exists)
				c.i64(ck.MinSize)
				c.i64(ck.MaxSize)
			}
		}
	}
	c.u64(uint64(len(s.Entries)))
	for _, e := range s.Entries {
		c.str(e.Name)
		c.i64(int64(e.Weight))
		c.bool(e.Scenario)
		c.f64(e.MaxRate)
		c.i64(int64(e.Data))
		c.str(e.Connection)
		c.i64(int64(e.Think))
		if e.Cookies != "" {
			// Only when kept, so plans without cookies keep their hash:
			// a cookie jar changes what later requests send.
			c.str("cookies")
			c.str(e.Cookies)
		}
		c.u64(uint64(len(e.Steps)))
		for i := range e.Steps {
			c.step(&e.Steps[i])
		}
	}
	c.u64(uint64(len(s.Data)))
	for _, d := range s.Data {
		c.bool(d.Random)
		c.u64(uint64(len(d.Columns)))
		for _, col := range d.Columns {
			c.str(col)
		}
		c.u64(uint64(len(d.Rows)))
		for _, row := range d.Rows {
			c.u64(uint64(len(row)))
			for _, v := range row {
				c.str(v)
			}
		}
	}
	c.u64(uint64(len(s.Users)))
	for _, u := range s.Users {
		c.i64(u.Start)
		c.i64(u.Stop)
	}
	return c.b
}

// slotHasher feeds slots to the hash in the canonical encoding, 8 bytes
// little-endian each, through one reused buffer.
type slotHasher struct {
	h   hash.Hash
	buf []byte
}

func newSlotHasher(s *Schedule) *slotHasher {
	h := sha256.New()
	h.Write(encodeHeader(s))
	return &slotHasher{h: h}
}

func (sh *slotHasher) add(slots []Slot) {
	sh.buf = sh.buf[:0]
	for _, sl := range slots {
		sh.buf = binary.LittleEndian.AppendUint64(sh.buf, uint64(sl))
	}
	sh.h.Write(sh.buf)
}

// sum closes the stream with its length, so a truncated stream never hashes
// like a whole one.
func (sh *slotHasher) sum(count int64) string {
	var c canon
	c.i64(count)
	sh.h.Write(c.b)
	return hex.EncodeToString(sh.h.Sum(nil))
}

// step encodes one step. What WebSocket steps add is encoded only when
// present, so the hash of a plan without them is what it always was.
func (c *canon) step(st *Step) {
	c.str(st.Name)
	c.i64(int64(st.Request))
	c.i64(int64(st.Repeat))
	c.i64(int64(st.Think))
	c.u64(uint64(len(st.Captures)))
	for _, cp := range st.Captures {
		c.str(cp.Name)
		c.u64(uint64(cp.Kind))
		c.str(cp.Expr)
		c.i64(int64(cp.Index))
	}
	if st.Kind == 0 && st.ThinkMax == 0 && st.WebSocket == nil {
		return
	}
	c.str("websocket")
	c.u64(uint64(st.Kind))
	c.i64(int64(st.ThinkMax))
	w := st.WebSocket
	if w == nil {
		c.bool(false)
		return
	}
	c.bool(true)
	c.u64(uint64(len(w.Subprotocols)))
	for _, p := range w.Subprotocols {
		c.str(p)
	}
	c.bool(w.Binary)
	c.bool(w.Wait)
	c.bool(w.Marked)
	c.i64(int64(w.Hold))
	c.i64(int64(w.CloseCode))
	c.i64(int64(w.Items))
	c.i64(int64(w.Max))
	c.bool(w.Await != nil)
	if a := w.Await; a != nil {
		c.u64(uint64(len(a.JSON)))
		for i := range a.JSON {
			c.str(a.JSON[i].Path)
			c.splice(&a.JSON[i].Value)
		}
		c.str(a.Regex)
		c.i64(int64(a.Timeout))
		c.str(a.Status)
	}
	c.u64(uint64(len(w.Steps)))
	for i := range w.Steps {
		c.step(&w.Steps[i])
	}
	// Only when set, so the hashes of plans without them stay as they were.
	if w.SkipIf != "" {
		c.str("skip_if")
		c.str(w.SkipIf)
	}
	if w.ExitIfFailed {
		c.str("exit_if_failed")
	}
}

// message hashes a gRPC message template (nil: a fixed message, which the
// body already holds).
func (c *canon) message(m *MessageTemplate) {
	if m == nil {
		c.u64(0)
		return
	}
	c.u64(uint64(len(m.Parts)) + 1)
	for i := range m.Parts {
		p := &m.Parts[i]
		c.bytes(p.Fixed)
		c.bytes(p.Tag)
		c.u64(uint64(p.Kind))
		c.bool(p.Implicit)
		c.splice(&p.Value)
		c.message(p.Nested)
	}
}
