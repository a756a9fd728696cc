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

// An independent client (coder/websocket) refuses the 101 of
// /fault/ws/extension, sees /fault/ws/close's code and reason, and fails
// on /fault/ws/rsv1's frame.
func TestFaultWebSocket(t *testing.T) {
	_, base := start(t)
	url := "ws" + strings.TrimPrefix(base, "http")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	opts := &websocket.DialOptions{CompressionMode: websocket.CompressionDisabled}
	if c, _, err := websocket.Dial(ctx, url+"/fault/ws/extension", opts); err == nil {
		c.CloseNow()
		t.Fatal("a 101 with an extension never offered was accepted")
	}

	c := dialWS(t, base, "/fault/ws/close?code=1011&reason=boom")
	sendJSON(t, c, "hello")
	_, _, err := c.Read(ctx)
	var ce websocket.CloseError
	if !errors.As(err, &ce) || ce.Code != 1011 || ce.Reason != "boom" {
		t.Fatalf("read after the first message: %v, want close 1011 boom", err)
	}

	c = dialWS(t, base, "/fault/ws/rsv1")
	sendJSON(t, c, "hello")
	if _, b, err := c.Read(ctx); err == nil {
		t.Fatalf("a frame with RSV1 set was read as %q", b)
	}
}
