package testserver

import (
	"bufio"
	"strconv"

	"github.com/valyala/fasthttp"
)

// JSONBody is what /json answers (with ?pad=0): a document of known
// content for response checks to test. ?pad=N adds a "pad" field of N
// bytes before the closing brace (up to MaxBytes), so a check of what
// follows it reads past a long body; ?chunked=1 sends it chunked, in
// writes of at most 1000 bytes each flushed on its own, so the client
// reads it in pieces.
const JSONBody = `{"status":"ok","count":42,"items":[{"id":"17","name":"widget"},{"id":"18","name":"gadget"}],` +
	`"data":{"token":"t-123","note":"say \"hello\""},"error":null`

func (s *Server) json(ctx *fasthttp.RequestCtx) {
	args := ctx.QueryArgs()
	pad, _ := strconv.Atoi(string(args.Peek("pad")))
	pad = min(max(pad, 0), s.opts.MaxBytes)
	body := make([]byte, 0, len(JSONBody)+pad+16)
	body = append(body, JSONBody...)
	if pad > 0 {
		body = append(body, `,"pad":"`...)
		for range pad {
			body = append(body, 'x')
		}
		body = append(body, '"')
	}
	body = append(body, `,"end":true}`...)
	ctx.SetContentTypeBytes(typeJSON)
	if string(args.Peek("chunked")) != "1" {
		ctx.SetBody(body)
		return
	}
	ctx.SetBodyStreamWriter(func(w *bufio.Writer) {
		for len(body) > 0 {
			n := min(1000, len(body))
			_, _ = w.Write(body[:n])
			if w.Flush() != nil {
				return
			}
			body = body[n:]
		}
	})
}
