package h2

import (
	"bytes"
	"unsafe"

	"golang.org/x/net/http2"
	"golang.org/x/net/http2/hpack"
)

// Request is what one stream sends. Its byte slices must stay unchanged
// until the stream is closed (the body may go out over several writes).
type Request struct {
	Method, Scheme, Authority, Path []byte
	Fields                          []Field // regular header fields, any case
	Body                            []byte
	// Block, when set, is the request's header block as AppendBlock
	// encoded it: Start sends it rather than encoding the fields again.
	Block []byte
}

// Field is one header field.
type Field struct{ Name, Value []byte }

// Start opens a stream for req: its HEADERS (and CONTINUATIONs) and as much
// of its body as the flow-control windows allow go into Output at once,
// the rest as the server opens its windows. Call it only when Ready.
func (c *Conn) Start(req *Request, tag int64) (*Stream, error) {
	s, err := c.openStream(req, tag, len(req.Body) == 0)
	if err != nil {
		return nil, err
	}
	s.body = req.Body
	c.sendBody(s)
	return s, c.err
}

// openStream makes a stream for req and writes its header block, with
// END_STREAM when end: what Start and Open share.
func (c *Conn) openStream(req *Request, tag int64, end bool) (*Stream, error) {
	if !c.Ready() {
		if c.err != nil {
			return nil, c.err
		}
		return nil, ErrNotReady
	}
	s := c.newStream(tag)
	block := req.Block
	if block == nil {
		block = c.enc.encode(req)
		c.writeErr(c.enc.err)
	}
	c.writeHeaders(s, block, end)
	c.streams[s.ID] = s
	return s, nil
}

// Open starts a stream whose request goes on after its headers, as a
// gRPC streaming call's does: no END_STREAM with them; its body is what
// Send queues, sent as the windows allow, and HalfClose ends it. Call it
// only when Ready; req.Body must be empty.
func (c *Conn) Open(req *Request, tag int64) (*Stream, error) {
	s, err := c.openStream(req, tag, false)
	if err != nil {
		return nil, err
	}
	s.open = true
	return s, c.err
}

// Send queues p (copied) on an open stream and sends what the windows
// allow now; the rest follows as the server opens them. It does nothing
// on a stream that has ended or was half-closed.
func (c *Conn) Send(s *Stream, p []byte) {
	if c.streams[s.ID] != s || !s.open {
		return
	}
	if len(s.body) == 0 {
		s.queue = s.queue[:0]
	}
	off := len(s.queue) - len(s.body)
	s.queue = append(s.queue, p...)
	s.body = s.queue[off:]
	c.sendBody(s)
}

// HalfClose ends an open stream's request: END_STREAM goes out with the
// last of what Send queued (an empty DATA frame when all of it is out).
func (c *Conn) HalfClose(s *Stream) {
	if c.streams[s.ID] != s || !s.open {
		return
	}
	s.open = false
	if len(s.body) == 0 {
		c.writeErr(c.fr.WriteData(s.ID, true, nil))
		s.Out += 9
	}
}

func (c *Conn) newStream(tag int64) *Stream {
	var s *Stream
	if n := len(c.free); n > 0 {
		s, c.free = c.free[n-1], c.free[:n-1]
	} else {
		s = new(Stream)
	}
	*s = Stream{ID: c.nextID, Tag: tag, window: int64(c.peerWindow), recvWindow: defaultStreamWindow, queue: s.queue[:0]}
	c.nextID += 2
	return s
}

// Cancel gives up a stream (a timeout): RST_STREAM(CANCEL) goes out, late
// frames for it are dropped, and the Handler hears nothing more of it.
func (c *Conn) Cancel(s *Stream) {
	if c.streams[s.ID] != s {
		return
	}
	delete(c.streams, s.ID)
	c.writeErr(c.fr.WriteRSTStream(s.ID, http2.ErrCodeCancel))
	c.unblock(s)
	c.recycle(s)
}

// end hands a finished stream to the Handler, then keeps it for reuse.
func (c *Conn) end(s *Stream, err error) {
	c.unblock(s)
	c.h.Closed(s, err)
	c.recycle(s)
}

func (c *Conn) recycle(s *Stream) {
	if s.gotHeaders {
		c.answering--
	}
	*s = Stream{queue: s.queue[:0]}
	c.free = append(c.free, s)
}

// blockEncoder builds request header blocks. Its encoder never indexes
// (table size 0), so a block depends on its request alone: the same on
// every connection, and for every send of one request.
type blockEncoder struct {
	henc  *hpack.Encoder
	buf   outBuffer
	lower []byte // a field name in lower case
	err   error  // writing to memory fails only on a bug of ours
}

func (e *blockEncoder) init() {
	e.henc = hpack.NewEncoder(&e.buf)
	e.henc.SetMaxDynamicTableSizeLimit(0)
}

// AppendBlock appends req's header block to dst, as Start would encode it:
// a request sent many times over (a static one) is encoded once.
func AppendBlock(dst []byte, req *Request) ([]byte, error) {
	var e blockEncoder
	e.init()
	b := e.encode(req)
	return append(dst, b...), e.err
}

// encode builds req's header block in e.buf and returns it (valid until the
// next encode). The strings handed to the encoder point into req and
// e.lower: an encoder whose table size is 0 keeps none of them.
func (e *blockEncoder) encode(req *Request) []byte {
	e.buf.reset()
	e.field(":method", req.Method)
	e.field(":scheme", req.Scheme)
	e.field(":authority", req.Authority)
	e.field(":path", req.Path)
	for i := range req.Fields {
		f := &req.Fields[i]
		e.lower = append(e.lower[:0], f.Name...)
		lowerASCII(e.lower)
		if connectionSpecific(e.lower) || (string(e.lower) == "te" && !bytes.EqualFold(f.Value, []byte("trailers"))) {
			continue // RFC 9113 §8.2.2
		}
		e.field(bytesString(e.lower), f.Value)
	}
	return e.buf.b
}

func (e *blockEncoder) field(name string, value []byte) {
	if err := e.henc.WriteField(hpack.HeaderField{Name: name, Value: bytesString(value)}); err != nil && e.err == nil {
		e.err = err
	}
}

// writeHeaders sends a header block as HEADERS plus CONTINUATIONs that fit
// the server's frame size.
func (c *Conn) writeHeaders(s *Stream, block []byte, endStream bool) {
	id := s.ID
	max := int(c.peerFrameSize)
	first := block[:min(len(block), max)]
	block = block[len(first):]
	c.writeErr(c.fr.WriteHeaders(http2.HeadersFrameParam{StreamID: id, BlockFragment: first,
		EndStream: endStream, EndHeaders: len(block) == 0}))
	s.Out += int64(9 + len(first))
	for len(block) > 0 {
		part := block[:min(len(block), max)]
		block = block[len(part):]
		c.writeErr(c.fr.WriteContinuation(id, len(block) == 0, part))
		s.Out += int64(9 + len(part))
	}
}

// sendBody writes as much of s's body as the windows allow; the rest waits
// in c.blocked for a WINDOW_UPDATE or SETTINGS.
func (c *Conn) sendBody(s *Stream) {
	for len(s.body) > 0 {
		n := min(int64(len(s.body)), int64(c.peerFrameSize), c.sendWindow, s.window)
		if n <= 0 {
			c.park(s)
			return
		}
		part := s.body[:n]
		s.body = s.body[n:]
		c.sendWindow -= n
		s.window -= n
		s.Out += 9 + n
		c.writeErr(c.fr.WriteData(s.ID, len(s.body) == 0 && !s.open, part))
	}
}

func (c *Conn) park(s *Stream) {
	for _, b := range c.blocked {
		if b == s {
			return
		}
	}
	c.blocked = append(c.blocked, s)
}

func (c *Conn) unblock(s *Stream) {
	for i, b := range c.blocked {
		if b == s {
			c.blocked = append(c.blocked[:i], c.blocked[i+1:]...)
			return
		}
	}
}

// flushBlocked sends waiting bodies, oldest stream first, as far as the
// windows now allow.
func (c *Conn) flushBlocked() {
	if len(c.blocked) == 0 {
		return
	}
	waiting := append(c.waiting[:0], c.blocked...)
	c.blocked = c.blocked[:0]
	for _, s := range waiting {
		if c.streams[s.ID] == s {
			c.sendBody(s) // parks it again if the windows are still short
		}
	}
	c.waiting = waiting[:0]
}

// connectionSpecific names the fields HTTP/2 forbids (RFC 9113 §8.2.2);
// Host becomes :authority.
func connectionSpecific(lower []byte) bool {
	switch string(lower) {
	case "connection", "keep-alive", "proxy-connection", "transfer-encoding", "upgrade", "host":
		return true
	}
	return false
}

func lowerASCII(b []byte) {
	for i, ch := range b {
		if 'A' <= ch && ch <= 'Z' {
			b[i] = ch + 'a' - 'A'
		}
	}
}

// bytesString views b as a string without copying, for calls that do not
// keep the string.
func bytesString(b []byte) string { return unsafe.String(unsafe.SliceData(b), len(b)) }
