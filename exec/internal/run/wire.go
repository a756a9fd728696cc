package run

import (
	"bufio"

	"github.com/valyala/fasthttp"

	"github.com/tressi/tressi/compile"
)

// WireWriter turns a request into the bytes sent on the wire, the way the
// fasthttp engine sends it: both engines put the same bytes on the wire.
type WireWriter struct {
	bw      *bufio.Writer
	out     appendWriter
	scratch []byte
}

type appendWriter struct{ b []byte }

func (a *appendWriter) Write(p []byte) (int, error) {
	a.b = append(a.b, p...)
	return len(p), nil
}

// Render appends to dst the request pr with the values v, built in req.
func (ww *WireWriter) Render(dst []byte, pr *PreparedRequest, v *compile.Values, req *fasthttp.Request) []byte {
	ww.scratch = Render(req, pr, v, ww.scratch)
	return ww.write(dst, req)
}

// write appends req's wire bytes to dst.
func (ww *WireWriter) write(dst []byte, req *fasthttp.Request) []byte {
	ww.out.b = dst
	if ww.bw == nil {
		ww.bw = bufio.NewWriterSize(&ww.out, 4096)
	} else {
		ww.bw.Reset(&ww.out)
	}
	req.URI().DisablePathNormalizing = true
	req.Header.DisableNormalizing()
	// Writing to memory cannot fail, and every request has a host.
	_ = req.Write(ww.bw)
	_ = ww.bw.Flush()
	return ww.out.b
}

// wireBytes are a static request's bytes, built once.
func wireBytes(static *fasthttp.Request) []byte {
	var req fasthttp.Request
	static.CopyTo(&req)
	var ww WireWriter
	return ww.write(nil, &req)
}
