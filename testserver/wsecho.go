package testserver

import (
	"bytes"
	"encoding/json"
	"time"

	"github.com/valyala/fasthttp"

	"github.com/tressi/tressi/ws"
)

// wsEcho is /ws/echo: every data message comes back with its opcode. A text
// message starting with {"delay_ms": comes back after that many
// milliseconds (clamped to MaxDelay), answered out of order with the
// messages after it, which is how tests check that concurrent awaits match
// by content, not by arrival. ?close_after=N makes the server close the
// connection (1001) after the Nth message, answering none of it.
type wsEcho struct{}

var delayPrefix = []byte(`{"delay_ms":`)

func (wsEcho) message(c *wsConn, op ws.Opcode, p []byte) {
	if c.closeAt > 0 && c.received >= c.closeAt {
		return
	}
	if op == ws.OpText && bytes.HasPrefix(p, delayPrefix) {
		var d struct {
			DelayMS int `json:"delay_ms"`
		}
		if json.Unmarshal(p, &d) == nil && d.DelayMS > 0 {
			msg := append([]byte(nil), p...)
			wait := min(time.Duration(d.DelayMS)*time.Millisecond, c.s.opts.MaxDelay)
			time.AfterFunc(wait, func() { c.send(op, msg) })
			return
		}
	}
	c.send(op, p)
}

func (wsEcho) gone(*wsConn) {}

func (s *Server) wsEcho(ctx *fasthttp.RequestCtx) {
	closeAt := 0
	if v := ctx.QueryArgs().Peek("close_after"); len(v) > 0 {
		n, ok := parseUint(v)
		if !ok || n == 0 {
			ctx.Error("close_after must be a whole number > 0\n", fasthttp.StatusBadRequest)
			return
		}
		closeAt = n
	}
	s.upgrade(ctx, wsEcho{}, func(c *wsConn) { c.closeAt = closeAt })
}
