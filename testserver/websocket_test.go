package testserver

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
)

// The WebSocket routes are checked with coder/websocket as the client: an
// implementation independent of tressi's ws package.

func dialWS(t *testing.T, base, path string) *websocket.Conn {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	url := "ws" + strings.TrimPrefix(base, "http") + path
	c, _, err := websocket.Dial(ctx, url, &websocket.DialOptions{Subprotocols: []string{"x"}})
	if err != nil {
		t.Fatalf("dial %s: %v", url, err)
	}
	t.Cleanup(func() { c.CloseNow() })
	return c
}

func sendJSON(t *testing.T, c *websocket.Conn, v string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := c.Write(ctx, websocket.MessageText, []byte(v)); err != nil {
		t.Fatal(err)
	}
}

// frame is a Tinode server message, decoded loosely.
type frame map[string]map[string]any

func readFrame(t *testing.T, c *websocket.Conn) frame {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, b, err := c.Read(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var f frame
	if err := json.Unmarshal(b, &f); err != nil {
		t.Fatalf("%v: %s", err, b)
	}
	return f
}

// until reads frames until one of kind with the given id arrives, and
// returns it with the frames skipped on the way.
func until(t *testing.T, c *websocket.Conn, kind, id string) (frame, []frame) {
	t.Helper()
	var skipped []frame
	for range 50 {
		f := readFrame(t, c)
		if m := f[kind]; m != nil && (id == "" || m["id"] == id) {
			return f, skipped
		}
		skipped = append(skipped, f)
	}
	t.Fatalf("no %s with id %q", kind, id)
	return nil, nil
}

func code(f frame) int { return int(f["ctrl"]["code"].(float64)) }

func tinodeLogin(t *testing.T, base, user string) *websocket.Conn {
	c := dialWS(t, base, "/v0/channels?apikey=AQEAAAABAAD_rAp4DJh05a1HAwFT3A6K")
	sendJSON(t, c, `{"hi":{"id":"1","ver":"0.22","ua":"test"}}`)
	if f, _ := until(t, c, "ctrl", "1"); code(f) != 201 {
		t.Fatalf("hi: %v", f)
	}
	secret := base64.StdEncoding.EncodeToString([]byte(user + ":" + user + "123"))
	sendJSON(t, c, `{"login":{"id":"2","scheme":"basic","secret":"`+secret+`"}}`)
	f, _ := until(t, c, "ctrl", "2")
	if code(f) != 200 || f["ctrl"]["params"].(map[string]any)["token"] == "" {
		t.Fatalf("login: %v", f)
	}
	return c
}

func TestTinodeSession(t *testing.T) {
	_, base := start(t)
	alice := tinodeLogin(t, base, "alice")
	bob := tinodeLogin(t, base, "bob")

	sendJSON(t, alice, `{"sub":{"id":"3","topic":"me","get":{"what":"desc"}}}`)
	if f, _ := until(t, alice, "ctrl", "3"); code(f) != 200 {
		t.Fatalf("sub me: %v", f)
	}
	if f, _ := until(t, alice, "meta", "3"); f["meta"]["desc"] == nil {
		t.Fatalf("sub me desc: %v", f)
	}
	sendJSON(t, alice, `{"get":{"id":"4","topic":"me","what":"sub"}}`)
	f, _ := until(t, alice, "meta", "4")
	subs := f["meta"]["sub"].([]any)
	if len(subs) != DefaultTinodeTopics+1 || subs[DefaultTinodeTopics].(map[string]any)["topic"] != TinodeChannel {
		t.Fatalf("subs: %v", subs)
	}
	topic := subs[0].(map[string]any)["topic"].(string)

	// A channel's readers may attach but not publish, as on Tinode.
	sendJSON(t, alice, `{"sub":{"id":"c1","topic":"`+TinodeChannel+`"}}`)
	if f, _ := until(t, alice, "ctrl", "c1"); code(f) != 200 {
		t.Fatalf("sub channel: %v", f)
	}
	sendJSON(t, alice, `{"pub":{"id":"c2","topic":"`+TinodeChannel+`","content":"x"}}`)
	if f, _ := until(t, alice, "ctrl", "c2"); code(f) != 403 {
		t.Fatalf("pub to channel: %v", f)
	}
	sendJSON(t, alice, `{"leave":{"id":"c3","topic":"`+TinodeChannel+`"}}`)
	if f, _ := until(t, alice, "ctrl", "c3"); code(f) != 200 {
		t.Fatalf("leave channel: %v", f)
	}
	sendJSON(t, alice, `{"leave":{"id":"c4","topic":"`+TinodeChannel+`"}}`)
	if f, _ := until(t, alice, "ctrl", "c4"); code(f) != 304 || f["ctrl"]["text"] != "not joined" {
		t.Fatalf("leave again: %v", f)
	}

	for _, c := range []*websocket.Conn{alice, bob} {
		sendJSON(t, c, `{"sub":{"id":"5","topic":"`+topic+`","get":{"what":"desc sub data del"}}}`)
		if f, _ := until(t, c, "ctrl", "5"); code(f) != 200 {
			t.Fatalf("sub topic: %v", f)
		}
		// The trailing ctrl for "data" then "del" carry the same id.
		if f, _ := until(t, c, "ctrl", "5"); code(f) != 204 && code(f) != 208 {
			t.Fatalf("sub data: %v", f)
		}
	}
	if f, _ := until(t, alice, "pres", ""); f["pres"]["what"] != "on" {
		t.Fatalf("pres: %v", f)
	}
	sendJSON(t, bob, `{"pub":{"id":"6","topic":"`+topic+`","content":"hello 7f3a"}}`)
	if f, _ := until(t, bob, "ctrl", "6"); code(f) != 202 {
		t.Fatalf("pub: %v", f)
	}
	if f, _ := until(t, alice, "data", ""); f["data"]["content"] != "hello 7f3a" || f["data"]["id"] != nil {
		t.Fatalf("fan-out: %v", f)
	}
	sendJSON(t, alice, `{"leave":{"id":"7","topic":"`+topic+`"}}`)
	if f, _ := until(t, alice, "ctrl", "7"); code(f) != 200 {
		t.Fatalf("leave: %v", f)
	}
	sendJSON(t, alice, `{"pub":{"id":"8","topic":"`+topic+`","content":"x"}}`)
	if f, _ := until(t, alice, "ctrl", "8"); code(f) != 409 {
		t.Fatalf("pub after leave: %v", f)
	}
	if err := alice.Close(websocket.StatusNormalClosure, ""); err != nil {
		t.Fatalf("close handshake: %v", err)
	}
}

func TestTinodeRefusals(t *testing.T) {
	_, base := start(t)
	c := dialWS(t, base, "/v0/channels")
	sendJSON(t, c, `{"sub":{"id":"a","topic":"me"}}`)
	if f, _ := until(t, c, "ctrl", "a"); code(f) != 401 {
		t.Fatalf("sub before login: %v", f)
	}
	secret := base64.StdEncoding.EncodeToString([]byte("alice:wrong"))
	sendJSON(t, c, `{"login":{"id":"b","scheme":"basic","secret":"`+secret+`"}}`)
	if f, _ := until(t, c, "ctrl", "b"); code(f) != 401 {
		t.Fatalf("bad password: %v", f)
	}
	sendJSON(t, c, `not json`)
	if f, _ := until(t, c, "ctrl", ""); code(f) != 400 {
		t.Fatalf("malformed: %v", f)
	}
}

func TestWSEchoOutOfOrderAndCloseAfter(t *testing.T) {
	srv, base := start(t)
	c := dialWS(t, base, "/ws/echo")
	sendJSON(t, c, `{"delay_ms":300,"n":1}`)
	sendJSON(t, c, `{"n":2}`)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, first, err := c.Read(ctx)
	if err != nil || string(first) != `{"n":2}` {
		t.Fatalf("first reply %s, %v", first, err)
	}
	_, second, err := c.Read(ctx)
	if err != nil || !strings.Contains(string(second), `"n":1`) {
		t.Fatalf("second reply %s, %v", second, err)
	}

	d := dialWS(t, base, "/ws/echo?close_after=2")
	sendJSON(t, d, `a`)
	sendJSON(t, d, `b`)
	if _, p, err := d.Read(ctx); err != nil || string(p) != "a" {
		t.Fatalf("echo %s %v", p, err)
	}
	_, _, err = d.Read(ctx)
	if websocket.CloseStatus(err) != websocket.StatusGoingAway {
		t.Fatalf("want close 1001, got %v", err)
	}
	if st := srv.Stats(); st.WSMessages != 4 || st.Routes["ws_echo"] != 2 {
		t.Fatalf("stats %+v: want 4 WebSocket messages over 2 upgrades", st)
	}
}

func TestWSPingsAndDropsSilentClients(t *testing.T) {
	_, base := start(t, Options{WSPingInterval: 50 * time.Millisecond, WSIdleTimeout: 400 * time.Millisecond})
	// coder/websocket answers pings while a Read is pending: the session stays.
	c := dialWS(t, base, "/ws/echo")
	ctx, cancel := context.WithTimeout(context.Background(), 800*time.Millisecond)
	defer cancel()
	if _, _, err := c.Read(ctx); ctx.Err() == nil {
		t.Fatalf("answered session was dropped: %v", err)
	}
}

func TestWSRefusesPlainHTTP(t *testing.T) {
	_, base := start(t)
	status, _, _ := do(t, "GET", base+"/v0/channels", "", "")
	if status != 426 {
		t.Fatalf("status %d, want 426", status)
	}
}
