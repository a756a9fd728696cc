package h2

import (
	"errors"

	"golang.org/x/net/http2"
)

// Feed takes bytes read from the socket: whole frames are handled at once
// (answers go to the Handler), a partial one waits for the rest. After an
// error the connection is dead: close the socket.
func (c *Conn) Feed(p []byte) error {
	if c.err != nil {
		return c.err
	}
	if len(c.pending) > 0 {
		c.pending = append(c.pending, p...)
		p = c.pending
	}
	for len(p) >= 9 && c.err == nil {
		size := 9 + (int(p[0])<<16 | int(p[1])<<8 | int(p[2]))
		if len(p) < size {
			if size > 9+defaultMaxFrameSize {
				// The Framer refuses it from its header alone.
				c.in.p = p[:9]
				_, err := c.fr.ReadFrameHeader()
				return c.readFailed(err)
			}
			break
		}
		c.in.p = p[:size]
		p = p[size:]
		c.readFrame()
	}
	c.keep(p)
	return c.err
}

// keep saves an incomplete frame's bytes for the next Feed; p may alias
// c.pending, which copy handles.
func (c *Conn) keep(p []byte) {
	if len(p) == 0 {
		c.pending = c.pending[:0]
		return
	}
	if cap(c.pending) < len(p) {
		c.pending = append(make([]byte, 0, max(len(p), 2*cap(c.pending))), p...)
		return
	}
	c.pending = c.pending[:len(p)]
	copy(c.pending, p)
}

// readFailed handles an error from the Framer: a stream error resets that
// stream, anything else fails the connection. It returns c.err.
func (c *Conn) readFailed(err error) error {
	var se http2.StreamError
	if errors.As(err, &se) {
		c.resetStream(se.StreamID, se.Code, &ConnError{Code: se.Code, Reason: "malformed frame"})
		return c.err
	}
	var ce http2.ConnectionError
	if errors.As(err, &ce) {
		reason := ""
		if d := c.fr.ErrorDetail(); d != nil {
			reason = d.Error()
		}
		return c.fail(&ConnError{Code: http2.ErrCode(ce), Reason: reason})
	}
	if errors.Is(err, http2.ErrFrameTooLarge) {
		return c.fail(&ConnError{Code: http2.ErrCodeFrameSize, Reason: "frame larger than SETTINGS_MAX_FRAME_SIZE"})
	}
	return c.fail(&ConnError{Code: http2.ErrCodeProtocol, Reason: err.Error()})
}

// readFrame reads the one whole frame in c.in. HEADERS are read here, not
// by the Framer, which would allocate a HeadersFrame for every response;
// the Framer still checks their order against CONTINUATIONs.
func (c *Conn) readFrame() {
	fh, err := c.fr.ReadFrameHeader()
	if err != nil {
		c.readFailed(err)
		return
	}
	if s := c.streams[fh.StreamID]; s != nil {
		s.In += int64(9 + fh.Length)
	}
	if fh.Type == http2.FrameHeaders {
		fragment, err := headersFragment(fh, c.in.p)
		if err != nil {
			c.readFailed(err)
			return
		}
		c.onHeaders(fh, fragment)
		return
	}
	f, err := c.fr.ReadFrameForHeader(fh)
	if err != nil {
		c.readFailed(err)
		return
	}
	c.frame(f)
}

// headersFragment is a HEADERS payload's header block fragment, less its
// padding and priority fields (RFC 9113 §6.2).
func headersFragment(fh http2.FrameHeader, p []byte) ([]byte, error) {
	if fh.StreamID == 0 {
		return nil, http2.ConnectionError(http2.ErrCodeProtocol)
	}
	pad := 0
	if fh.Flags.Has(http2.FlagHeadersPadded) {
		if len(p) < 1 {
			return nil, http2.ConnectionError(http2.ErrCodeFrameSize)
		}
		pad, p = int(p[0]), p[1:]
	}
	if fh.Flags.Has(http2.FlagHeadersPriority) {
		if len(p) < 5 {
			return nil, http2.ConnectionError(http2.ErrCodeFrameSize)
		}
		p = p[5:]
	}
	if pad > len(p) {
		return nil, http2.StreamError{StreamID: fh.StreamID, Code: http2.ErrCodeProtocol}
	}
	return p[:len(p)-pad], nil
}

func (c *Conn) frame(f http2.Frame) {
	switch f := f.(type) {
	case *http2.DataFrame:
		c.onData(f)
	case *http2.ContinuationFrame:
		c.headerFragment(f.HeaderBlockFragment(), f.HeadersEnded())
	case *http2.SettingsFrame:
		c.onSettings(f)
	case *http2.PingFrame:
		if !f.IsAck() {
			c.writeErr(c.fr.WritePing(true, f.Data))
		}
	case *http2.GoAwayFrame:
		c.onGoAway(f)
	case *http2.RSTStreamFrame:
		c.onReset(f)
	case *http2.WindowUpdateFrame:
		c.onWindowUpdate(f)
	case *http2.PushPromiseFrame:
		c.fail(&ConnError{Code: http2.ErrCodeProtocol, Reason: "PUSH_PROMISE after SETTINGS_ENABLE_PUSH=0"})
	}
	// PRIORITY, PRIORITY_UPDATE and unknown frame types are ignored (RFC 9113 §4.1, §5.5).
}

// stream finds the open stream a frame is for. A stream we already ended
// (reset, timed out) is not an error: its late frames are dropped. A
// stream we never opened is.
func (c *Conn) stream(id uint32) (s *Stream, known bool) {
	if s := c.streams[id]; s != nil {
		return s, true
	}
	if id%2 == 0 || id >= c.nextID {
		c.fail(&ConnError{Code: http2.ErrCodeProtocol, Reason: "frame on a stream the client never opened"})
	}
	return nil, false
}

func (c *Conn) onData(f *http2.DataFrame) {
	n := int64(f.Length) // padding counts toward flow control
	c.recvWindow -= n
	if c.recvWindow < 0 {
		c.fail(&ConnError{Code: http2.ErrCodeFlowControl, Reason: "DATA beyond the connection window"})
		return
	}
	c.returnConn(n)
	s, ok := c.stream(f.StreamID)
	if !ok {
		return
	}
	s.recvWindow -= n
	switch {
	case s.recvWindow < 0:
		c.resetStream(s.ID, http2.ErrCodeFlowControl, &ConnError{Code: http2.ErrCodeFlowControl, Reason: "DATA beyond the stream window"})
		return
	case !s.gotHeaders:
		c.resetStream(s.ID, http2.ErrCodeProtocol, &ConnError{Code: http2.ErrCodeProtocol, Reason: "DATA before the response headers"})
		return
	}
	if d := f.Data(); len(d) > 0 {
		c.h.Data(s, d)
	}
	if f.StreamEnded() {
		c.complete(s)
		return
	}
	s.recvCredit += n
	if s.recvCredit >= defaultStreamWindow/2 {
		c.writeErr(c.fr.WriteWindowUpdate(s.ID, uint32(s.recvCredit)))
		s.recvWindow += s.recvCredit
		s.recvCredit = 0
	}
}

// returnConn gives consumed bytes back to the server's connection window
// once half of it is used, in one WINDOW_UPDATE.
func (c *Conn) returnConn(n int64) {
	c.recvCredit += n
	if c.recvCredit >= defaultConnWindow/2 {
		c.writeErr(c.fr.WriteWindowUpdate(0, uint32(c.recvCredit)))
		c.recvWindow += c.recvCredit
		c.recvCredit = 0
	}
}

func (c *Conn) onHeaders(fh http2.FrameHeader, fragment []byte) {
	s, ok := c.stream(fh.StreamID)
	if c.err != nil {
		return
	}
	c.block = headerBlock{s: s, end: fh.Flags.Has(http2.FlagHeadersEndStream), trailers: ok && s.gotHeaders}
	switch {
	case !ok:
		// A stream we ended: decode the block anyway, to keep HPACK in step.
		c.setEmit(false)
	case c.block.trailers && !c.block.end:
		c.resetStream(s.ID, http2.ErrCodeProtocol, &ConnError{Code: http2.ErrCodeProtocol, Reason: "trailers without END_STREAM"})
		c.block.s = nil
		c.setEmit(false)
	case c.block.trailers:
		c.setEmit(s.wantFields)
	default:
		c.setEmit(true)
	}
	c.headerFragment(fragment, fh.Flags.Has(http2.FlagHeadersEndHeaders))
}

// headerFragment decodes part of a header block; the Framer has checked
// that CONTINUATION frames follow their HEADERS on the same stream.
func (c *Conn) headerFragment(p []byte, ended bool) {
	if c.err != nil {
		return
	}
	whole := ended && c.block.size == 0
	c.block.size += len(p)
	if c.block.size > maxHeaderBlock {
		c.fail(&ConnError{Code: http2.ErrCodeEnhanceYourCalm, Reason: "response header block over 256 KiB"})
		return
	}
	if whole {
		if fields, ok := c.memo.recall(p); ok {
			for _, f := range fields {
				if c.emitOn {
					c.emit(f)
				}
			}
			c.headersDone()
			return
		}
	}
	if err := c.memo.catchUp(c.hdec, c.emitOn); err != nil {
		c.fail(&ConnError{Code: http2.ErrCodeCompression, Reason: err.Error()})
		return
	}
	if _, err := c.hdec.Write(p); err != nil {
		c.fail(&ConnError{Code: http2.ErrCodeCompression, Reason: err.Error()})
		return
	}
	if !ended {
		return
	}
	if err := c.hdec.Close(); err != nil {
		c.fail(&ConnError{Code: http2.ErrCodeCompression, Reason: err.Error()})
		return
	}
	if whole {
		c.memo.learn(p)
	}
	c.headersDone()
}

// headersDone ends a header block: an interim 1xx is forgotten, a final
// response marks the stream answered, trailers or END_STREAM end it.
func (c *Conn) headersDone() {
	b := c.block
	c.block = headerBlock{}
	s := b.s
	if s == nil {
		return
	}
	switch {
	case b.trailers:
		c.complete(s)
		return
	case b.interim:
		if b.end {
			c.resetStream(s.ID, http2.ErrCodeProtocol, &ConnError{Code: http2.ErrCodeProtocol, Reason: "END_STREAM on a 1xx response"})
		}
		return
	case s.status == 0:
		c.resetStream(s.ID, http2.ErrCodeProtocol, &ConnError{Code: http2.ErrCodeProtocol, Reason: "response without a valid :status"})
		return
	}
	s.gotHeaders = true
	c.answering++
	if b.end {
		c.complete(s)
	}
}

// setEmit says whether the fields of the block being read are wanted.
func (c *Conn) setEmit(on bool) {
	c.emitOn = on
	c.hdec.SetEmitEnabled(on)
}

// emit receives each decoded header field of the block being read.
func (c *Conn) emit(f hpackField) {
	s := c.block.s
	if s == nil || c.block.bad {
		return
	}
	if c.block.trailers {
		if len(f.Name) > 0 && f.Name[0] != ':' {
			c.h.Field(s, f.Name, f.Value)
		}
		return
	}
	if f.Name == ":status" {
		c.status(s, f.Value)
		return
	}
	if s.status != 0 && s.wantFields && len(f.Name) > 0 && f.Name[0] != ':' {
		c.h.Field(s, f.Name, f.Value)
	}
}

// status reads :status; after a final one the handler says whether it
// wants the other fields, and if not the decoder stops making strings.
func (c *Conn) status(s *Stream, v string) {
	code := 0
	for i := 0; i < len(v); i++ {
		if v[i] < '0' || v[i] > '9' || len(v) != 3 {
			code = 0
			break
		}
		code = code*10 + int(v[i]-'0')
	}
	switch {
	case code < 100 || s.status != 0:
		c.block.bad = true // status stays 0: headersDone resets the stream
		c.setEmit(false)
	case code < 200 && code != 101:
		c.block.interim = true
		c.setEmit(false)
	case code == 101:
		c.block.bad = true // RFC 9113 §8.6: no 101 in HTTP/2
		c.setEmit(false)
	default:
		s.status = code
		s.wantFields = c.h.Response(s, code)
		c.setEmit(s.wantFields)
	}
}

func (c *Conn) onSettings(f *http2.SettingsFrame) {
	if f.IsAck() {
		return // our SETTINGS hold from the start: nothing waits for the ack
	}
	err := f.ForeachSetting(func(st http2.Setting) error {
		switch st.ID {
		case http2.SettingMaxConcurrentStreams:
			c.peerMaxStreams = st.Val
		case http2.SettingInitialWindowSize:
			delta := int64(st.Val) - int64(c.peerWindow)
			c.peerWindow = int32(st.Val)
			for _, s := range c.streams {
				s.window += delta
				if s.window > 1<<31-1 {
					return &ConnError{Code: http2.ErrCodeFlowControl, Reason: "SETTINGS_INITIAL_WINDOW_SIZE overflows a stream window"}
				}
			}
		case http2.SettingMaxFrameSize:
			c.peerFrameSize = st.Val
		}
		return nil
	})
	if err != nil {
		c.fail(err)
		return
	}
	c.sawSettings = true
	c.writeErr(c.fr.WriteSettingsAck())
	c.flushBlocked()
}

func (c *Conn) onGoAway(f *http2.GoAwayFrame) {
	c.goAway = true
	c.goAwayLast = f.LastStreamID
	if f.ErrCode != http2.ErrCodeNo {
		reason := string(f.DebugData())
		if len(reason) > 200 {
			reason = reason[:200]
		}
		c.goAwayErr = &ConnError{Code: f.ErrCode, Reason: reason, Remote: true}
	}
	for id, s := range c.streams {
		if id > f.LastStreamID {
			delete(c.streams, id)
			c.end(s, ErrUnprocessed)
		}
	}
}

func (c *Conn) onReset(f *http2.RSTStreamFrame) {
	s, ok := c.stream(f.StreamID)
	if !ok {
		return
	}
	delete(c.streams, s.ID)
	switch {
	case f.ErrCode == http2.ErrCodeRefusedStream:
		c.end(s, ErrUnprocessed)
	case f.ErrCode == http2.ErrCodeNo && s.ended:
		c.end(s, nil)
	default:
		c.end(s, &StreamError{Code: f.ErrCode})
	}
}

func (c *Conn) onWindowUpdate(f *http2.WindowUpdateFrame) {
	if f.StreamID == 0 {
		c.sendWindow += int64(f.Increment)
		if c.sendWindow > 1<<31-1 {
			c.fail(&ConnError{Code: http2.ErrCodeFlowControl, Reason: "connection window over 2^31-1"})
			return
		}
	} else {
		s, ok := c.stream(f.StreamID)
		if !ok {
			return
		}
		s.window += int64(f.Increment)
		if s.window > 1<<31-1 {
			c.resetStream(s.ID, http2.ErrCodeFlowControl, &ConnError{Code: http2.ErrCodeFlowControl, Reason: "stream window over 2^31-1"})
			return
		}
	}
	c.flushBlocked()
}

// complete ends a stream whose response arrived whole. A request body
// still unsent, or an open stream's request not yet half-closed, is
// abandoned with RST_STREAM(NO_ERROR): the server answered without it
// (RFC 9113 §8.1).
func (c *Conn) complete(s *Stream) {
	s.ended = true
	if len(s.body) > 0 || s.open {
		c.writeErr(c.fr.WriteRSTStream(s.ID, http2.ErrCodeNo))
	}
	delete(c.streams, s.ID)
	c.end(s, nil)
}

// resetStream ends a stream on our side with RST_STREAM(code).
func (c *Conn) resetStream(id uint32, code http2.ErrCode, err error) {
	c.writeErr(c.fr.WriteRSTStream(id, code))
	if s := c.streams[id]; s != nil {
		delete(c.streams, id)
		c.end(s, err)
	}
}
