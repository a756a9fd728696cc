package h2

import (
	"crypto/tls"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// answer is what a test's handler saw of one stream.
type answer struct {
	status int
	fields map[string]string
	body   strings.Builder
	err    error
	done   bool
}

// recorder is a Handler that keeps everything, by the stream's Tag.
type recorder struct {
	answers    map[int64]*answer
	wantFields bool
	closed     int
}

func newRecorder() *recorder { return &recorder{answers: map[int64]*answer{}, wantFields: true} }

func (r *recorder) get(tag int64) *answer {
	a := r.answers[tag]
	if a == nil {
		a = &answer{fields: map[string]string{}}
		r.answers[tag] = a
	}
	return a
}

func (r *recorder) Response(s *Stream, status int) bool {
	r.get(s.Tag).status = status
	return r.wantFields
}
func (r *recorder) Field(s *Stream, name, value string) { r.get(s.Tag).fields[name] = value }
func (r *recorder) Data(s *Stream, p []byte)            { r.get(s.Tag).body.Write(p) }
func (r *recorder) Closed(s *Stream, err error) {
	a := r.get(s.Tag)
	a.err, a.done = err, true
	r.closed++
}

// pump drives a Conn over a blocking net.Conn, as the loop would over a
// socket: write what is pending, read, feed.
type pump struct {
	t    testing.TB
	nc   net.Conn
	c    *Conn
	rec  *recorder
	buf  []byte
	eof  bool
	read int
}

func newPump(t testing.TB, nc net.Conn, cfg Config) *pump {
	rec := newRecorder()
	return &pump{t: t, nc: nc, c: NewConn(rec, cfg), rec: rec, buf: make([]byte, 16<<10)}
}

func (p *pump) flush() {
	for out := p.c.Output(); len(out) > 0; out = p.c.Output() {
		p.nc.SetWriteDeadline(time.Now().Add(10 * time.Second))
		n, err := p.nc.Write(out)
		p.c.Wrote(n)
		if err != nil {
			p.t.Fatalf("write: %v", err)
		}
	}
}

// until pumps until done says so, the connection fails, or 20 s pass.
func (p *pump) until(done func() bool) {
	p.t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !done() {
		p.flush()
		if p.eof || p.c.Err() != nil {
			return
		}
		if time.Now().After(deadline) {
			p.t.Fatalf("no progress in 20 s: %d streams open", p.c.Active())
		}
		p.nc.SetReadDeadline(time.Now().Add(time.Second))
		n, err := p.nc.Read(p.buf)
		p.read += n
		if n > 0 {
			p.c.Feed(p.buf[:n])
		}
		if err == io.EOF {
			p.eof = true
			p.c.Close()
		} else if err != nil && !isTimeout(err) {
			p.t.Fatalf("read: %v", err)
		}
	}
	p.flush()
}

func isTimeout(err error) bool {
	ne, ok := err.(net.Error)
	return ok && ne.Timeout()
}

// get is a simple GET request for path.
func get(authority, path string) *Request {
	return &Request{Method: []byte("GET"), Scheme: []byte("https"), Authority: []byte(authority), Path: []byte(path)}
}

// startTLS starts a Go HTTP/2 server over TLS on loopback.
func startTLS(t testing.TB, h http.Handler, configure func(*http.Server)) *httptest.Server {
	srv := httptest.NewUnstartedServer(h)
	srv.EnableHTTP2 = true
	if configure != nil {
		configure(srv.Config)
	}
	srv.StartTLS()
	t.Cleanup(srv.Close)
	return srv
}

// dialTLS connects to srv with ALPN h2, as the loop would.
func dialTLS(t testing.TB, srv *httptest.Server) net.Conn {
	cfg := srv.Client().Transport.(*http.Transport).TLSClientConfig.Clone()
	cfg.NextProtos = []string{"h2"}
	nc, err := tls.Dial("tcp", srv.Listener.Addr().String(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if p := nc.ConnectionState().NegotiatedProtocol; p != "h2" {
		t.Fatalf("ALPN chose %q, want h2", p)
	}
	t.Cleanup(func() { nc.Close() })
	return nc
}

// startH2C starts a Go server speaking cleartext HTTP/2 with prior knowledge.
func startH2C(t testing.TB, h http.Handler) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: h, Protocols: new(http.Protocols)}
	srv.Protocols.SetUnencryptedHTTP2(true)
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return ln.Addr().String()
}

func dialTCP(t testing.TB, addr string) net.Conn {
	nc, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { nc.Close() })
	return nc
}

// echo answers with what it received: method, path, body length.
var echo = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	w.Header().Set("X-Method", r.Method)
	w.Header().Set("X-Proto", r.Proto)
	fmt.Fprintf(w, "%s %s %d", r.Method, r.URL.RequestURI(), len(body))
})
