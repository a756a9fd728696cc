package ws

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
)

// These tests check the framing against an independent implementation:
// coder/websocket as the server for the client side, and as the client for
// the server side (the built-in target's role).

// rawClient is a minimal blocking client built only from this package.
type rawClient struct {
	t    *testing.T
	conn net.Conn
	r    Reader
	buf  []byte
	rest []byte
}

func dialRaw(t *testing.T, url string, protocols []string) (*rawClient, Response) {
	t.Helper()
	addr := strings.TrimPrefix(url, "http://")
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	conn.SetDeadline(time.Now().Add(10 * time.Second))
	k := NewKey([16]byte{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16})
	if _, err := conn.Write(AppendRequest(nil, addr, "/ws?x=1", k, protocols, []Header{{"X-Test", "yes"}})); err != nil {
		t.Fatal(err)
	}
	c := &rawClient{t: t, conn: conn, buf: make([]byte, 4096)}
	var head []byte
	for {
		n, err := conn.Read(c.buf)
		if err != nil {
			t.Fatal(err)
		}
		head = append(head, c.buf[:n]...)
		used, resp, err := CheckResponse(head, k, protocols)
		if err != nil {
			t.Fatal(err)
		}
		if used > 0 {
			c.rest = head[used:]
			return c, resp
		}
	}
}

func (c *rawClient) send(op Opcode, fin bool, p string) {
	c.t.Helper()
	if _, err := c.conn.Write(AppendFrame(nil, op, fin, []byte(p), true, [4]byte{0xa1, 0xb2, 0xc3, 0xd4})); err != nil {
		c.t.Fatal(err)
	}
}

// next returns the next message, reading the socket as needed.
func (c *rawClient) next() (Opcode, string, error) {
	for {
		if len(c.rest) > 0 {
			n, ready, err := c.r.Feed(c.rest)
			c.rest = c.rest[n:]
			if err != nil {
				return 0, "", err
			}
			if ready {
				return c.r.Op, string(c.r.Payload()), nil
			}
			continue
		}
		n, err := c.conn.Read(c.buf[:7]) // small reads: frames arrive in pieces
		if err != nil {
			return 0, "", err
		}
		c.rest = c.buf[:n]
	}
}

func TestClientAgainstCoderServer(t *testing.T) {
	pinged := make(chan error, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("X-Test") != "yes" || r.URL.RawQuery != "x=1" {
			http.Error(w, "missing header or query", 400)
			return
		}
		c, err := websocket.Accept(w, r, &websocket.AcceptOptions{Subprotocols: []string{"chat"}})
		if err != nil {
			return
		}
		c.SetReadLimit(1 << 20)
		ctx, cancel := context.WithTimeout(r.Context(), 10*time.Second)
		defer cancel()
		// The server pings first: the client must answer while it reads.
		go func() { pinged <- c.Ping(ctx) }()
		for {
			typ, data, err := c.Read(ctx)
			if err != nil {
				return
			}
			if err := c.Write(ctx, typ, data); err != nil {
				return
			}
		}
	}))
	defer srv.Close()

	c, resp := dialRaw(t, srv.URL, []string{"other", "chat"})
	if resp.Protocol != "chat" {
		t.Fatalf("subprotocol %q", resp.Protocol)
	}
	c.send(OpText, false, "hel")
	c.send(OpPing, true, "mine") // a control frame between fragments
	c.send(OpContinuation, true, "lo")
	c.send(OpBinary, true, strings.Repeat("\x00\x01", 40000))

	var got []string
	for len(got) < 2 {
		op, p, err := c.next()
		if err != nil {
			t.Fatal(err)
		}
		switch op {
		case OpPing:
			c.send(OpPong, true, p)
		case OpPong:
			if p != "mine" {
				t.Fatalf("pong %q", p)
			}
		case OpText, OpBinary:
			got = append(got, p)
		case OpClose:
			t.Fatalf("server closed: %q", p)
		}
	}
	if got[0] != "hello" || got[1] != strings.Repeat("\x00\x01", 40000) {
		t.Fatalf("echo %q", clipS(got[0]))
	}
	select {
	case err := <-pinged:
		if err != nil {
			t.Fatalf("server ping not answered: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("server ping not answered")
	}

	// Close handshake: the server echoes our close frame, then closes.
	c.conn.Write(AppendClose(nil, CloseNormal, "done", true, key))
	for {
		op, _, err := c.next()
		if err != nil {
			t.Fatalf("no close frame back: %v", err)
		}
		if op == OpClose {
			if code, _ := c.r.CloseCode(); code != CloseNormal {
				t.Fatalf("close code %d", code)
			}
			break
		}
	}
	if _, _, err := c.next(); !errors.Is(err, io.EOF) {
		t.Fatalf("after close: %v", err)
	}
}

func TestHandshakeRefused(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "no", http.StatusForbidden)
	}))
	defer srv.Close()
	conn, err := net.Dial("tcp", strings.TrimPrefix(srv.URL, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	k := NewKey([16]byte{})
	conn.Write(AppendRequest(nil, "x", "/", k, nil, nil))
	br := bufio.NewReader(conn)
	var head []byte
	for {
		line, err := br.ReadBytes('\n')
		if err != nil {
			t.Fatal(err)
		}
		head = append(head, line...)
		if n, resp, err := CheckResponse(head, k, nil); n > 0 {
			if !errors.Is(err, ErrHandshake) || resp.Status != 403 {
				t.Fatalf("status %d err %v", resp.Status, err)
			}
			return
		}
	}
}

func TestCheckResponse(t *testing.T) {
	k := NewKey([16]byte{7})
	acc := AcceptKey(k[:])
	ok := "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: " + string(acc[:]) + "\r\n"
	cases := []struct {
		name, head string
		protos     []string
		wantErr    bool
		proto      string
	}{
		{"ok", ok + "\r\n", nil, false, ""},
		{"protocol", ok + "Sec-WebSocket-Protocol: chat\r\n\r\n", []string{"chat"}, false, "chat"},
		{"protocol never offered", ok + "Sec-WebSocket-Protocol: other\r\n\r\n", []string{"chat"}, true, ""},
		{"extensions never offered", ok + "Sec-WebSocket-Extensions: permessage-deflate\r\n\r\n", nil, true, ""},
		{"wrong accept", strings.Replace(ok, string(acc[:]), "AAAA", 1) + "\r\n", nil, true, ""},
		{"no upgrade", strings.Replace(ok, "Upgrade: websocket\r\n", "", 1) + "\r\n", nil, true, ""},
		{"200", "HTTP/1.1 200 OK\r\n\r\n", nil, true, ""},
	}
	for _, c := range cases {
		n, resp, err := CheckResponse([]byte(c.head+"\x81\x00"), k, c.protos)
		if n != len(c.head) {
			t.Errorf("%s: n = %d, want %d", c.name, n, len(c.head))
		}
		if (err != nil) != c.wantErr || resp.Protocol != c.proto && err == nil {
			t.Errorf("%s: err %v protocol %q", c.name, err, resp.Protocol)
		}
	}
	if n, _, err := CheckResponse([]byte(ok), k, nil); n != 0 || err != nil {
		t.Errorf("incomplete head: n %d err %v", n, err)
	}
}

// RFC 6455 §1.3's worked example.
func TestAcceptKeyExample(t *testing.T) {
	got := AcceptKey([]byte("dGhlIHNhbXBsZSBub25jZQ=="))
	if string(got[:]) != "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=" {
		t.Fatalf("got %s", got)
	}
}
