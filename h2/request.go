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
}

// Field is one header field.
type Field struct{ Name, Value []byte }

// Start opens a stream for req: its HEADERS (and CONTINUATIONs) and as much
// of its body as the flow-control windows allow go into Output at once,
// the rest as the server opens its windows. Call it only when Ready.
func (c *Conn) Start(req *Request, tag int64) (*Stream, error) {
	if !c.Ready() {
		if c.err != nil {
			return nil, c.err
		}
		return nil, ErrNotReady
	}
	s := c.newStream(tag)
	c.encode(req)
	c.writeHeaders(s, c.hbuf.b, len(req.Body) == 0)
	s.body = req.Body
	c.streams[s.ID] = s
	c.sendBody(s)
	return s, c.err
}

func (c *Conn) newStream(tag int64) *Stream {
	var s *Stream
	if n := len(c.free); n > 0 {
		s, c.free = c.free[n-1], c.free[:n-1]
	} else {
		s = new(Stream)
	}
	*s = Stream{ID: c.nextID, Tag: tag, window: int64(c.peerWindow), recvWindow: defaultStreamWindow}
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
	*s = Stream{}
	c.free = append(c.free, s)
}

// encode builds req's header block in c.hbuf. The strings handed to the
// encoder point into req and c.lower: an encoder whose table size is 0
// keeps none of them.
func (c *Conn) encode(req *Request) {
	c.hbuf.reset()
	c.field(":method", req.Method)
	c.field(":scheme", req.Scheme)
	c.field(":authority", req.Authority)
	c.field(":path", req.Path)
	for i := range req.Fields {
		f := &req.Fields[i]
		c.lower = append(c.lower[:0], f.Name...)
		lowerASCII(c.lower)
		if connectionSpecific(c.lower) || (string(c.lower) == "te" && !bytes.EqualFold(f.Value, []byte("trailers"))) {
			continue // RFC 9113 §8.2.2
		}
		c.field(bytesString(c.lower), f.Value)
	}
}

func (c *Conn) field(name string, value []byte) {
	// Writing to memory fails only on a bug of ours.
	c.writeErr(c.henc.WriteField(hpack.HeaderField{Name: name, Value: bytesString(value)}))
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
		c.writeErr(c.fr.WriteData(s.ID, len(s.body) == 0, part))
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
