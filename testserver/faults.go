package testserver

import (
	"bufio"
	"bytes"
	"net"
	"net/http"
	"strconv"
	"time"

	"github.com/valyala/fasthttp"

	"github.com/tressi/tressi/ws"
)

// The /fault/ routes misbehave on purpose, the way foreign servers were
// seen to: a client's tests point at them to check that every row it
// writes still tells the truth.
var (
	prefixFault        = []byte("/fault/")
	pathUnsolicited    = []byte("/fault/unsolicited")
	pathWSExtension    = []byte("/fault/ws/extension")
	pathWSClose        = []byte("/fault/ws/close")
	pathWSRSV1         = []byte("/fault/ws/rsv1")
	pathWSUTF8         = []byte("/fault/ws/utf8")
	pathWSBigPing      = []byte("/fault/ws/bigping")
	unsolicitedAnswer  = []byte("HTTP/1.1 503 Service Unavailable\r\nContent-Length: 12\r\n\r\nunsolicited\n")
	solicitedAnswer    = []byte("HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\nok\n")
	unsolicitedPause   = time.Millisecond
	defaultCloseCode   = 1011 // internal error
	defaultCloseReason = "internal error"
)

// fault routes one /fault/ path.
func (s *Server) fault(ctx *fasthttp.RequestCtx, path []byte) {
	switch {
	case bytes.Equal(path, pathUnsolicited):
		s.unsolicited(ctx)
	case bytes.Equal(path, pathWSExtension):
		s.wsExtension(ctx)
	case bytes.Equal(path, pathWSClose):
		s.wsCloseFault(ctx)
	case bytes.Equal(path, pathWSRSV1):
		s.upgrade(ctx, wsBadFrame{"rsv1"}, nil)
	case bytes.Equal(path, pathWSUTF8):
		s.upgrade(ctx, wsBadFrame{"utf8"}, nil)
	case bytes.Equal(path, pathWSBigPing):
		s.upgrade(ctx, wsBadFrame{"bigping"}, nil)
	default:
		ctx.Error("no such fault\n", fasthttp.StatusNotFound)
	}
}

// unsolicited is /fault/unsolicited: it answers 200, then 1 ms later sends
// a 503 nobody asked for on the same connection, and goes on serving the
// connection that way. A client that reads the 503 as the next request's
// answer records a response the server never gave.
func (s *Server) unsolicited(ctx *fasthttp.RequestCtx) {
	ctx.HijackSetNoResponse(true)
	ctx.Hijack(func(conn net.Conn) {
		br := bufio.NewReader(conn)
		for {
			if _, err := conn.Write(solicitedAnswer); err != nil {
				return
			}
			time.Sleep(unsolicitedPause)
			if _, err := conn.Write(unsolicitedAnswer); err != nil {
				return
			}
			req, err := http.ReadRequest(br)
			if err != nil {
				return
			}
			s.counters.count(RouteFault)
			if req.Body != nil {
				req.Body.Close()
			}
		}
	})
}

// wsExtension is /fault/ws/extension: a 101 whose Sec-WebSocket-Extensions
// names permessage-deflate, which no client offered; RFC 6455 §4.1 says the
// client must fail the connection.
func (s *Server) wsExtension(ctx *fasthttp.RequestCtx) {
	key := ctx.Request.Header.Peek("Sec-WebSocket-Key")
	if len(key) != ws.KeyLen {
		ctx.Error("missing or malformed Sec-WebSocket-Key\n", fasthttp.StatusBadRequest)
		return
	}
	accept := ws.AcceptKey(key)
	head := append([]byte("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: "), accept[:]...)
	head = append(head, "\r\nSec-WebSocket-Extensions: permessage-deflate\r\n\r\n"...)
	ctx.HijackSetNoResponse(true)
	ctx.Hijack(func(conn net.Conn) {
		conn.Write(head)
		// Hold the connection until the client fails it.
		conn.SetReadDeadline(time.Now().Add(s.opts.WSIdleTimeout))
		var b [512]byte
		for {
			if _, err := conn.Read(b[:]); err != nil {
				return
			}
		}
	})
}

// wsCloseFault is /fault/ws/close?code=N&reason=TEXT: a WebSocket endpoint
// that answers its first message with a close frame of that code (default
// 1011) and reason (default "internal error").
func (s *Server) wsCloseFault(ctx *fasthttp.RequestCtx) {
	h := wsCloser{code: defaultCloseCode, reason: defaultCloseReason}
	if v := ctx.QueryArgs().Peek("code"); len(v) > 0 {
		n, err := strconv.Atoi(string(v))
		if err != nil || n < 1000 || n > 4999 {
			ctx.Error("code must be a close code in 1000..4999\n", fasthttp.StatusBadRequest)
			return
		}
		h.code = n
	}
	if ctx.QueryArgs().Has("reason") {
		h.reason = string(ctx.QueryArgs().Peek("reason"))
	}
	if len(h.reason) > ws.MaxControlPayload-2 {
		ctx.Error("reason must fit a control frame (123 bytes)\n", fasthttp.StatusBadRequest)
		return
	}
	s.upgrade(ctx, h, nil)
}

// wsCloser closes the connection with its code and reason on the first
// data message, answering none.
type wsCloser struct {
	code   int
	reason string
}

func (h wsCloser) message(c *wsConn, _ ws.Opcode, _ []byte) { c.close(h.code, h.reason) }
func (wsCloser) gone(*wsConn)                               {}

// wsBadFrame answers every message with a frame that breaks RFC 6455:
// rsv1, the message back with the RSV1 bit set, which only a negotiated
// extension may set (none was); utf8, a text frame that is not UTF-8;
// bigping, a ping of 126 bytes (control frames carry at most 125).
type wsBadFrame struct{ kind string }

func (h wsBadFrame) message(c *wsConn, op ws.Opcode, p []byte) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return
	}
	switch h.kind {
	case "rsv1":
		c.wbuf = ws.AppendFrame(c.wbuf[:0], op, true, p, false, [4]byte{})
		c.wbuf[0] |= 0x40
	case "utf8":
		c.wbuf = ws.AppendFrame(c.wbuf[:0], ws.OpText, true, []byte{'m', 0xff, 0xfe}, false, [4]byte{})
	default: // bigping
		c.wbuf = ws.AppendFrame(c.wbuf[:0], ws.OpPing, true, bytes.Repeat([]byte{'p'}, ws.MaxControlPayload+1), false, [4]byte{})
	}
	c.conn.SetWriteDeadline(time.Now().Add(10 * time.Second))
	c.conn.Write(c.wbuf)
}

func (wsBadFrame) gone(*wsConn) {}
