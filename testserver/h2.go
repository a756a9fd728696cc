package testserver

import (
	"bufio"
	"bytes"
	"crypto/tls"
	"io"
	"log"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/valyala/fasthttp"
	"github.com/valyala/fasthttp/fasthttpadaptor"
)

// HTTP/2: fasthttp speaks HTTP/1.1 only, so the server looks at each
// connection before fasthttp gets it. One that opens with HTTP/2's client
// preface (h2c, prior knowledge), or a TLS connection whose handshake
// picked "h2" by ALPN, goes to Go's HTTP/2 server instead, whose handler
// runs the same routes (fasthttp's request and response, converted).
// Everything else, WebSocket upgrades included, stays on fasthttp. A TLS
// listener offers h2 when its config lists it in NextProtos (H2TLSConfig
// adds it).

// h2Preface is what every HTTP/2 client sends first (RFC 9113 §3.4).
var h2Preface = []byte("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n")

// sniffTimeout bounds how long a new connection may take to show its
// first bytes or finish its TLS handshake.
const sniffTimeout = 10 * time.Second

// H2TLSConfig is cfg offering HTTP/2 and HTTP/1.1 by ALPN, for a TLS
// listener in front of the server: tls.NewListener(ln, H2TLSConfig(cfg)).
func H2TLSConfig(cfg *tls.Config) *tls.Config {
	c := cfg.Clone()
	c.NextProtos = []string{"h2", "http/1.1"}
	return c
}

// protocolListener hands fasthttp the HTTP/1.1 connections of ln and
// serves the HTTP/2 ones itself.
type protocolListener struct {
	net.Listener
	c    *counters
	h1   chan net.Conn
	h2   *http.Server
	h2ln *connListener
	done chan struct{}
	once sync.Once
}

func (s *Server) protocolListener(ln net.Listener) *protocolListener {
	pl := &protocolListener{Listener: ln, c: &s.counters, h1: make(chan net.Conn), done: make(chan struct{}),
		h2ln: newConnListener(ln.Addr())}
	pl.h2 = &http.Server{Handler: http.HandlerFunc(s.serveH2), Protocols: new(http.Protocols),
		ConnState: s.counters.h2ConnState, ErrorLog: log.New(io.Discard, "", 0)}
	pl.h2.Protocols.SetHTTP1(true) // a TLS connection that picked http/1.1 never comes here, but Serve needs one
	pl.h2.Protocols.SetHTTP2(true)
	pl.h2.Protocols.SetUnencryptedHTTP2(true)
	go pl.h2.Serve(pl.h2ln)
	go pl.acceptLoop()
	return pl
}

func (pl *protocolListener) acceptLoop() {
	for {
		c, err := pl.Listener.Accept()
		if err != nil {
			pl.Close()
			return
		}
		pl.c.connState(c, fasthttp.StateNew)
		go pl.route(c)
	}
}

// drop closes a connection no server took.
func (pl *protocolListener) drop(c net.Conn) {
	c.Close()
	pl.c.connState(c, fasthttp.StateClosed)
}

// route sends c to fasthttp or to the HTTP/2 server.
func (pl *protocolListener) route(c net.Conn) {
	c.SetDeadline(time.Now().Add(sniffTimeout))
	if tc, ok := c.(*tls.Conn); ok {
		if err := tc.Handshake(); err != nil {
			pl.drop(c)
			return
		}
		c.SetDeadline(time.Time{})
		if tc.ConnectionState().NegotiatedProtocol == "h2" {
			pl.toH2(c)
			return
		}
		pl.toH1(c)
		return
	}
	pc := &peekedConn{Conn: c, r: bufio.NewReader(c)}
	h2 := startsWithPreface(pc.r)
	c.SetDeadline(time.Time{})
	if h2 {
		pl.toH2(pc)
		return
	}
	pl.toH1(pc)
}

func (pl *protocolListener) toH1(c net.Conn) {
	select {
	case pl.h1 <- c:
	case <-pl.done:
		pl.drop(c)
	}
}

func (pl *protocolListener) toH2(c net.Conn) {
	if !pl.h2ln.put(c) {
		pl.drop(c)
	}
}

// startsWithPreface reads as little as it must: an HTTP/1.1 request
// differs from the preface within its first few bytes.
func startsWithPreface(r *bufio.Reader) bool {
	for n := 1; n <= len(h2Preface); n++ {
		b, err := r.Peek(n)
		if err != nil || !bytes.HasPrefix(h2Preface, b) {
			return false
		}
	}
	return true
}

// Accept returns the next HTTP/1.1 connection.
func (pl *protocolListener) Accept() (net.Conn, error) {
	select {
	case c := <-pl.h1:
		return c, nil
	case <-pl.done:
		return nil, net.ErrClosed
	}
}

// Close closes the listener and the HTTP/2 server's connections.
func (pl *protocolListener) Close() error {
	var err error
	pl.once.Do(func() {
		close(pl.done)
		err = pl.Listener.Close()
		pl.h2.Close()
	})
	return err
}

// serveH2 runs the routes for an HTTP/2 request.
func (s *Server) serveH2(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(io.LimitReader(r.Body, int64(s.opts.MaxRequestBody)+1))
	if err != nil {
		return // the stream was reset
	}
	if len(body) > s.opts.MaxRequestBody {
		http.Error(w, "request body too large", http.StatusRequestEntityTooLarge) // as fasthttp answers HTTP/1.1
		return
	}
	r.Body = http.NoBody
	var req fasthttp.Request
	fasthttpadaptor.ConvertNetHTTPRequestToFastHTTPRequest(r, &req)
	req.SetBody(body)
	var ctx fasthttp.RequestCtx
	ctx.Init(&req, nil, discardLogger{})
	s.handle(&ctx)
	resp := &ctx.Response
	for k, v := range resp.Header.All() {
		switch string(k) {
		case fasthttp.HeaderContentLength, fasthttp.HeaderConnection, fasthttp.HeaderTransferEncoding:
			continue // the HTTP/2 server frames the body itself
		}
		w.Header().Add(string(k), string(v))
	}
	w.WriteHeader(resp.StatusCode())
	w.Write(resp.Body())
}

// peekedConn is a connection whose first bytes were read ahead.
type peekedConn struct {
	net.Conn
	r *bufio.Reader
}

func (c *peekedConn) Read(b []byte) (int, error) { return c.r.Read(b) }

// connListener is a listener fed connections by hand.
type connListener struct {
	addr  net.Addr
	conns chan net.Conn
	done  chan struct{}
	once  sync.Once
}

func newConnListener(addr net.Addr) *connListener {
	return &connListener{addr: addr, conns: make(chan net.Conn), done: make(chan struct{})}
}

// put hands c to the server; false when the listener is closed.
func (l *connListener) put(c net.Conn) bool {
	select {
	case l.conns <- c:
		return true
	case <-l.done:
		return false
	}
}

func (l *connListener) Accept() (net.Conn, error) {
	select {
	case c := <-l.conns:
		return c, nil
	case <-l.done:
		return nil, net.ErrClosed
	}
}

func (l *connListener) Close() error {
	l.once.Do(func() { close(l.done) })
	return nil
}

func (l *connListener) Addr() net.Addr { return l.addr }

// Connections are counted open when accepted (a client that has sent
// nothing yet holds one), and closed by whichever server ends them, or by
// route when it drops one.

// h1ConnState is fasthttp's ConnState hook: the end of a connection.
func (c *counters) h1ConnState(conn net.Conn, st fasthttp.ConnState) {
	if st != fasthttp.StateNew {
		c.connState(conn, st)
	}
}

// h2ConnState is the HTTP/2 server's: the end of a connection.
func (c *counters) h2ConnState(conn net.Conn, st http.ConnState) {
	if st == http.StateClosed || st == http.StateHijacked {
		c.connState(conn, fasthttp.StateClosed)
	}
}
