package h2

import "io"

// outBuffer collects frames for the socket; the loop drains it from off.
type outBuffer struct {
	b   []byte
	off int
}

func (o *outBuffer) Write(p []byte) (int, error) {
	o.b = append(o.b, p...)
	return len(p), nil
}

// consume drops n sent bytes, and the storage behind them once all went.
func (o *outBuffer) consume(n int) {
	o.off += n
	if o.off >= len(o.b) {
		o.b, o.off = o.b[:0], 0
	}
}

func (o *outBuffer) reset() { o.b, o.off = o.b[:0], 0 }

// frameReader is the Framer's io.Reader: it serves the bytes of whole
// frames only, so ReadFrame never meets the end of the input midway.
type frameReader struct{ p []byte }

func (r *frameReader) Read(b []byte) (int, error) {
	if len(r.p) == 0 {
		return 0, io.ErrUnexpectedEOF
	}
	n := copy(b, r.p)
	r.p = r.p[n:]
	return n, nil
}
