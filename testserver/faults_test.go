package testserver

import (
	"bufio"
	"context"
	"errors"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/coder/websocket"
)

// /fault/unsolicited answers each request with a 200 and then a 503 no
// request asked for, on the same connection, request after request.
func TestFaultUnsolicited(t *testing.T) {
	_, base := start(t)
	c, err := net.Dial("tcp", strings.TrimPrefix(base, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(10 * time.Second))
	br := bufio.NewReader(c)
	for i := range 2 {
		if _, err := c.Write([]byte("GET /fault/unsolicited HTTP/1.1\r\nHost: x\r\n\r\n")); err != nil {
			t.Fatal(err)
		}
		for _, want := range []int{200, 503} {
			resp, err := http.ReadResponse(br, nil)
			if err != nil {
				t.Fatalf("request %d: %v", i, err)
			}
			resp.Body.Close()
			if resp.StatusCode != want {
				t.Fatalf("request %d: status %d, want %d", i, resp.StatusCode, want)
			}
		}
	}
}

// /fault/ws/extension's 101 names an extension never offered; an
// independent client (coder/websocket) sees /fault/ws/close's code and
// reason, fails on the frames of /fault/ws/rsv1 and bigping, and reads the
// text of /fault/ws/utf8, which is not UTF-8.
func TestFaultWebSocket(t *testing.T) {
	_, base := start(t)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	// The 101 of /fault/ws/extension names an extension nobody offered.
	raw, err := net.Dial("tcp", strings.TrimPrefix(base, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	raw.SetDeadline(time.Now().Add(10 * time.Second))
	raw.Write([]byte("GET /fault/ws/extension HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n" +
		"Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n"))
	resp, err := http.ReadResponse(bufio.NewReader(raw), nil)
	if err != nil || resp.StatusCode != 101 || resp.Header.Get("Sec-WebSocket-Extensions") != "permessage-deflate" ||
		resp.Header.Get("Sec-WebSocket-Accept") != "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=" {
		t.Fatalf("/fault/ws/extension answered %v %v", resp, err)
	}

	c := dialWS(t, base, "/fault/ws/close?code=1011&reason=boom")
	sendJSON(t, c, "hello")
	_, _, err = c.Read(ctx)
	var ce websocket.CloseError
	if !errors.As(err, &ce) || ce.Code != 1011 || ce.Reason != "boom" {
		t.Fatalf("read after the first message: %v, want close 1011 boom", err)
	}

	for _, path := range []string{"/fault/ws/rsv1", "/fault/ws/bigping"} {
		c = dialWS(t, base, path)
		sendJSON(t, c, "hello")
		if _, b, err := c.Read(ctx); err == nil {
			t.Fatalf("%s: the frame that breaks RFC 6455 was read as %q", path, b)
		}
	}
	// coder/websocket leaves text frames' UTF-8 unchecked: the frame is read.
	c = dialWS(t, base, "/fault/ws/utf8")
	sendJSON(t, c, "hello")
	if op, b, err := c.Read(ctx); err != nil || op != websocket.MessageText || utf8.Valid(b) {
		t.Fatalf("/fault/ws/utf8: %v %q %v, want a text message that is not UTF-8", op, b, err)
	}
}
