package h2

import (
	"bytes"
	"io"
	"net/http"
	"testing"
)

// streamEcho writes back each piece of the request body as it arrives,
// and ends once the client half-closes: a bidirectional stream.
var streamEcho = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
	w.WriteHeader(200)
	w.(http.Flusher).Flush()
	buf := make([]byte, 32<<10)
	for {
		n, err := r.Body.Read(buf)
		if n > 0 {
			w.Write(buf[:n])
			w.(http.Flusher).Flush()
		}
		if err == io.EOF {
			w.Write([]byte("|end"))
			return
		}
		if err != nil {
			return
		}
	}
})

// An open stream sends its body in pieces, each after the answer to the
// last (the stream stays open between them), beyond the flow-control
// windows, and ends with END_STREAM on HalfClose.
func TestOpenStreamSendsLaterAndHalfCloses(t *testing.T) {
	addr := startH2C(t, streamEcho)
	p := newPump(t, dialTCP(t, addr), Config{})
	req := get(addr, "/chat")
	req.Scheme, req.Method = []byte("http"), []byte("POST")
	s, err := p.c.Open(req, 1)
	if err != nil {
		t.Fatal(err)
	}
	a := p.rec.get(1)
	p.c.Send(s, []byte("hello"))
	p.until(func() bool { return a.body.Len() >= len("hello") })
	if a.done || a.body.String() != "hello" {
		t.Fatalf("after the first send: done %v, body %q; want the stream open with %q", a.done, a.body.String(), "hello")
	}
	big := bytes.Repeat([]byte("0123456789abcdef"), 1<<14) // 256 KiB: past the 64 KiB initial window
	p.c.Send(s, big)
	p.c.Send(s, []byte("tail"))
	want := "hello" + string(big) + "tail"
	p.until(func() bool { return a.body.Len() >= len(want) })
	if a.done {
		t.Fatal("the stream ended before the half-close")
	}
	p.c.HalfClose(s)
	p.c.Send(s, []byte("ignored")) // after the half-close: nothing goes out
	p.until(func() bool { return a.done })
	if a.err != nil || a.body.String() != want+"|end" {
		t.Fatalf("err %v, body of %d bytes (ends %q); want %d bytes ending |end", a.err, a.body.Len(), a.body.String()[max(0, a.body.Len()-8):], len(want)+4)
	}
	if p.c.Active() != 0 {
		t.Fatalf("%d streams still active", p.c.Active())
	}
}

// A half-close with nothing queued is an empty DATA frame with END_STREAM.
func TestHalfCloseWithNothingQueued(t *testing.T) {
	addr := startH2C(t, streamEcho)
	p := newPump(t, dialTCP(t, addr), Config{})
	req := get(addr, "/chat")
	req.Scheme, req.Method = []byte("http"), []byte("POST")
	s, err := p.c.Open(req, 3)
	if err != nil {
		t.Fatal(err)
	}
	p.c.HalfClose(s)
	a := p.rec.get(3)
	p.until(func() bool { return a.done })
	if a.err != nil || a.body.String() != "|end" {
		t.Fatalf("err %v, body %q; want |end", a.err, a.body.String())
	}
}
