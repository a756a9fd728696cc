package loop

import (
	"github.com/tressi/tressi/compile"
	"github.com/tressi/tressi/exec/internal/check"
	"github.com/tressi/tressi/exec/internal/run"
	"github.com/tressi/tressi/exec/internal/session"
	"github.com/tressi/tressi/h1"
	"github.com/valyala/fasthttp"
)

// A connection frames its exchanges in one of two concrete kinds, set when
// it connects and switched on wherever the loop hands it bytes or ends it
// (write, decode, eof, fail, closeConn: c.mux != nil), so no read goes
// through an interface. HTTP/1.1 (h1Codec, c.h1) carries one exchange at a
// time: its begin gives the bytes that send the job, decode says how many
// read bytes it used and whether they completed the exchange, eof whether
// the peer's close did, and response is the completed exchange, valid
// until the next begin. HTTP/2 (h2mux, c.mux) carries many, keeping its own
// table of the jobs in flight and reporting each completion the way
// h1Codec reports its one. A new protocol is a new kind beside these two.

// lresponse is what a completed exchange leaves for its row and sample.
type lresponse struct {
	status    int
	keepAlive bool // the connection may carry another exchange
	sampled   bool // the head hook asked to keep a sample of it
	// RawResponse: the head, when sampled or captured from, and the kept
	// prefix of the body: the sample's size, or a capture's limit.
	session.RawResponse
	bodyLen int64 // the body's whole size
	// reqPath is the request's path, when its job keeps cookies: a
	// Set-Cookie's default path and a cookie() capture's path.
	reqPath []byte
	// check runs the request's checks on the response as it streams in
	// (its codec's or stream's matcher, inactive without checks).
	check *check.Matcher
}

// h1MaxHead bounds the read buffer: a head must fit it whole.
const h1MaxHead = h1.MaxHead

// h1Codec is HTTP/1.1, one exchange at a time: the request's bytes as
// fasthttp writes them (the writer both engines share), the response read
// by the streaming h1.Parser, which keeps only the sampled prefix of a
// body, whatever its size.
type h1Codec struct {
	p    h1.Parser
	resp lresponse
	// wbuf holds a rendered request with holes; cbuf one with cookies
	// added (cookies_linux.go), abuf with a digest answer (digest_linux.go).
	wbuf, cbuf, abuf []byte
	memo             sampleMemo
	check            check.Matcher
	tap              func([]byte) // feeds check: the parser's Tap for a request with checks
}

func newH1Codec(l *evloop, c *lconn) *h1Codec {
	h := &h1Codec{}
	h.p.Head = h.headHook(l, c)
	h.tap = h.check.Body
	h.resp.check = &h.check
	return h
}

func (h *h1Codec) begin(l *evloop, c *lconn) []byte {
	j := &c.job
	pr := j.pr
	h.resp.sampled = false
	h.resp.Head, h.resp.Body = h.resp.Head[:0], nil
	h.p.Reset(j.method() == "HEAD", c.t.maxBody)
	h.check.Start(pr.Checks)
	h.p.Tap = nil
	if pr.Checks != nil {
		h.p.Tap = h.tap
	}
	wire := pr.Wire
	if j.redir != nil {
		wire = j.redir.wire // a redirect's next hop
	} else if wire == nil {
		h.wbuf = l.render(h.wbuf[:0], j)
		wire = h.wbuf
	}
	return l.withDigest(j, l.withCookies(j, wire, &h.cbuf, &h.resp), &h.abuf)
}

// render appends j's request, which has holes, to dst as HTTP/1.1 bytes
// with j's values: its slot, its data row, its session's captures.
func (l *evloop) render(dst []byte, j *ljob) []byte {
	l.enc.vals.Slot = j.k
	l.enc.vals.Row = l.ex.S.Row(int(j.entry), j.k)
	l.enc.vals.Captured = nil
	if j.st != nil {
		l.enc.vals.Captured = l.sessions[j.sess].cap.Values
	}
	return l.enc.render(dst, j.pr)
}

func (h *h1Codec) decode(in []byte) (int, bool, error) {
	used, done, err := h.p.Feed(in)
	if done {
		h.settle()
	}
	return used, done, err
}

func (h *h1Codec) eof() (bool, error) {
	done, err := h.p.EOF()
	if err == nil {
		// The body ended with the connection.
		h.p.Close = true
		h.settle()
		done = true
	}
	return done, err
}

func (h *h1Codec) settle() {
	h.resp.status, h.resp.keepAlive = h.p.Status, !h.p.Close
	h.resp.Body, h.resp.bodyLen = h.p.Body, h.p.BodyLen
}

func (h *h1Codec) response() *lresponse { return &h.resp }

// headHook is the parser's hook: once a response's status is known,
// keeper decides how much of it to keep; nothing else of a body is held.
func (h *h1Codec) headHook(l *evloop, c *lconn) func(int, []byte) int {
	return func(status int, head []byte) int {
		keep, keepHead, sampled := h.memo.keep(l, &c.job, status)
		h.resp.sampled = sampled
		h.check.Head(head)
		if keepHead {
			h.resp.Head = append(h.resp.Head[:0], head...)
		}
		return keep
	}
}

// sampleMemo remembers the last endpoint and status found sampled already,
// so the common case of a connection's responses skips the sink's map.
type sampleMemo struct{ ep, status uint16 }

// keep decides how much of j's response, of this status, to keep: for a
// sample (the first of its kind) its head and the sample's prefix of its
// body; for a session step's captures its head or the capture limit's
// prefix of its body. Both kinds ask it once per response.
func (m *sampleMemo) keep(l *evloop, j *ljob, status int) (keep int, keepHead, sampled bool) {
	if st := j.st; st != nil && len(st.Capture) > 0 {
		keepHead = st.ReadsHead
		if st.ReadsBody {
			keep = session.CaptureBodyLimit
		}
	}
	keepHead = keepHead || l.cookieStore(j) != nil || // its Set-Cookie lines
		status == 401 && j.pr.Spec.Digest != nil || // its challenge
		j.wantsLocation(status) // the redirect it follows
	if m.sampleNew(l, j.pr.Endpoint, status) {
		keep, keepHead, sampled = max(keep, l.ex.MaxSample), true, true
	}
	return keep, keepHead, sampled
}

// sampleNew says whether a response of this endpoint and status would be
// the first of its kind.
func (m *sampleMemo) sampleNew(l *evloop, ep uint16, status int) bool {
	if status < 0 || status > 0xffff || (ep == m.ep && uint16(status) == m.status) {
		return false
	}
	if !l.sink.SampleNew(ep, uint16(status)) {
		m.ep, m.status = ep, uint16(status)
		return false
	}
	return true
}

// h1Encoder renders a request with holes into its wire bytes with the
// loop's values: one per loop, since the loop renders one at a time.
type h1Encoder struct {
	vals compile.Values
	req  fasthttp.Request
	wire run.WireWriter
}

func (e *h1Encoder) render(dst []byte, pr *run.PreparedRequest) []byte {
	return e.wire.Render(dst, pr, &e.vals, &e.req)
}
