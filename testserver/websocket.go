package testserver

import (
	"bytes"
	"errors"
	"net"
	"sync"
	"time"

	"github.com/valyala/fasthttp"

	"github.com/tressi/tressi/ws"
)

// WebSocket defaults, Tinode's: the server pings every 50 s and drops a
// session that stayed silent (no frame, not even a pong) for 55 s.
const (
	DefaultWSPingInterval = 50 * time.Second
	DefaultWSIdleTimeout  = 55 * time.Second
	wsMaxMessage          = 1 << 20
)

var (
	pathChannels = []byte("/v0/channels") // Tinode's WebSocket endpoint
	pathWSEcho   = []byte("/ws/echo")
)

// wsHandler serves one upgraded connection until it ends.
type wsHandler interface {
	// message handles one data message; p is only valid during the call.
	message(c *wsConn, op ws.Opcode, p []byte)
	// gone is called once when the connection ends.
	gone(c *wsConn)
}

// wsConn is the server side of one WebSocket connection. Reads happen on
// the connection's own goroutine; writes may come from any goroutine (a
// Tinode pub fans out from the publisher's), so they are serialised.
type wsConn struct {
	s    *Server
	conn net.Conn
	r    ws.Reader

	mu     sync.Mutex
	wbuf   []byte
	closed bool

	// Per-protocol state, owned by the reading goroutine unless noted.
	user     string
	attached map[string]bool // Tinode topics this session is attached to (guarded by the hub)
	received int             // data messages received
	closeAt  int             // /ws/echo?close_after=N: close after N messages (0: never)
}

// upgrade answers a WebSocket handshake on ctx and hands the connection to h.
// It reports false (having answered with an error) when ctx is not a valid
// upgrade request.
func (s *Server) upgrade(ctx *fasthttp.RequestCtx, h wsHandler, setup func(*wsConn)) {
	hdr := &ctx.Request.Header
	key := hdr.Peek("Sec-WebSocket-Key")
	switch {
	case !ctx.IsGet():
		ctx.Response.Header.Set(headerAllow, "GET")
		ctx.Error("WebSocket upgrade needs GET\n", fasthttp.StatusMethodNotAllowed)
		return
	case !hasToken(hdr.Peek("Connection"), "upgrade") || !bytes.EqualFold(hdr.Peek("Upgrade"), []byte("websocket")):
		ctx.Error("this is a WebSocket endpoint: send Connection: Upgrade and Upgrade: websocket\n", fasthttp.StatusUpgradeRequired)
		return
	case string(hdr.Peek("Sec-WebSocket-Version")) != "13":
		ctx.Response.Header.Set("Sec-WebSocket-Version", "13")
		ctx.Error("unsupported Sec-WebSocket-Version\n", fasthttp.StatusUpgradeRequired)
		return
	case len(key) != ws.KeyLen:
		ctx.Error("missing or malformed Sec-WebSocket-Key\n", fasthttp.StatusBadRequest)
		return
	}
	accept := ws.AcceptKey(key)
	var head []byte
	head = append(head, "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: "...)
	head = append(head, accept[:]...)
	head = append(head, "\r\n"...)
	// Offer back the first subprotocol asked for: the target has no
	// preference, and a client that asked for one expects an answer.
	if p := hdr.Peek("Sec-WebSocket-Protocol"); len(p) > 0 {
		first, _, _ := bytes.Cut(p, []byte(","))
		head = append(head, "Sec-WebSocket-Protocol: "...)
		head = append(head, bytes.TrimSpace(first)...)
		head = append(head, "\r\n"...)
	}
	head = append(head, "\r\n"...)
	c := &wsConn{s: s, r: ws.Reader{FromClient: true, MaxMessage: wsMaxMessage}}
	if setup != nil {
		setup(c)
	}
	ctx.HijackSetNoResponse(true)
	ctx.Hijack(func(conn net.Conn) {
		c.conn = conn
		if _, err := conn.Write(head); err != nil {
			return
		}
		c.serve(h)
	})
}

// serve reads frames until the connection ends, answering pings and the
// close handshake, pinging the client and dropping it when silent.
func (c *wsConn) serve(h wsHandler) {
	defer h.gone(c)
	defer c.shut()
	stop := make(chan struct{})
	defer close(stop)
	go c.pinger(stop)

	buf := make([]byte, 4096)
	for {
		c.conn.SetReadDeadline(time.Now().Add(c.s.opts.WSIdleTimeout))
		n, err := c.conn.Read(buf)
		if err != nil {
			return
		}
		for b := buf[:n]; ; {
			k, ready, err := c.r.Feed(b)
			b = b[k:]
			if err != nil {
				code := ws.CloseProtocolError
				if errors.Is(err, ws.ErrTooBig) {
					code = ws.CloseTooBig
				}
				c.close(code, "")
				return
			}
			if !ready {
				break
			}
			if !c.frame(h) {
				return
			}
		}
	}
}

// frame handles one ready message; false ends the connection.
func (c *wsConn) frame(h wsHandler) bool {
	switch c.r.Op {
	case ws.OpPing:
		c.send(ws.OpPong, c.r.Payload())
	case ws.OpPong:
	case ws.OpClose:
		code, _ := c.r.CloseCode()
		if code == ws.CloseNoStatus {
			code = 0
		}
		c.close(code, "")
		return false
	default:
		c.received++
		c.s.counters.messages.n.Add(1)
		h.message(c, c.r.Op, c.r.Payload())
		if c.closeAt > 0 && c.received >= c.closeAt {
			c.close(ws.CloseGoingAway, "close_after reached")
			return false
		}
	}
	return true
}

func (c *wsConn) pinger(stop chan struct{}) {
	t := time.NewTicker(c.s.opts.WSPingInterval)
	defer t.Stop()
	for {
		select {
		case <-t.C:
			if c.send(ws.OpPing, nil) != nil {
				return
			}
		case <-stop:
			return
		case <-c.s.done:
			c.close(ws.CloseGoingAway, "server shutting down")
			return
		}
	}
}

var errWSClosed = errors.New("websocket closed")

// send writes one unfragmented frame (servers never mask).
func (c *wsConn) send(op ws.Opcode, p []byte) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return errWSClosed
	}
	c.wbuf = ws.AppendFrame(c.wbuf[:0], op, true, p, false, [4]byte{})
	c.conn.SetWriteDeadline(time.Now().Add(10 * time.Second))
	_, err := c.conn.Write(c.wbuf)
	if cap(c.wbuf) > 64<<10 {
		c.wbuf = nil // do not keep a large message's buffer per connection
	}
	return err
}

// close sends a close frame (code 0: none) once and closes the socket.
func (c *wsConn) close(code int, reason string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return
	}
	c.closed = true
	c.conn.SetWriteDeadline(time.Now().Add(time.Second))
	c.conn.Write(ws.AppendClose(nil, code, reason, false, [4]byte{}))
	c.conn.Close()
}

func (c *wsConn) shut() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.closed {
		c.closed = true
		c.conn.Close()
	}
}

func hasToken(v []byte, tok string) bool {
	for part := range bytes.SplitSeq(v, []byte(",")) {
		if bytes.EqualFold(bytes.TrimSpace(part), []byte(tok)) {
			return true
		}
	}
	return false
}
