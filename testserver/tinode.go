package testserver

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/valyala/fasthttp"

	"github.com/tressi/tressi/ws"
)

// The built-in target speaks enough of Tinode's wire protocol (its
// /v0/channels WebSocket endpoint, JSON messages {"hi"}, {"login"},
// {"sub"}, {"get"}, {"pub"}, {"leave"}) for Tinode's own load test to run
// against it unchanged:
//
//   - hi → ctrl 201 "created" with the server's version.
//   - login, scheme "basic", secret base64("user:password") → ctrl 200 with
//     params.user and params.token when the password is the user name
//     followed by "123" (Tinode's sample data: alice/alice123, user1/user1123),
//     ctrl 401 otherwise; scheme "token" with a token it issued → ctrl 200.
//   - Anything but hi and login before a login → ctrl 401.
//   - sub "me" → ctrl 200 then, for get.what "desc", a meta desc.
//   - get "me" what "sub" → meta with the user's subscriptions: TinodeTopics
//     of the tinodePool group topics grpTressi0 … grpTressi63, picked by a
//     hash of the user name, then the channel chnTressi, which every user
//     reads (as Tinode's sample users carol, dave and frank read chn…). Any
//     of them can be subscribed to (attached), member or not:
//     SingleTopicLoadtest loads grpTressi0 by default.
//   - sub to a group topic → ctrl 200, then for each word of get.what:
//     "desc" and "sub" metas, "data" the topic's last stored messages as data
//     frames (without id) and a ctrl 208 "delivered", or ctrl 204 when there
//     are none; "del" a ctrl 204. Other attached sessions get a pres "on".
//   - pub to an attached topic → ctrl 202 "accepted" with params.seq, and a
//     data frame to every session attached to the topic, the publisher
//     included (unless noecho). Not attached: ctrl 409 "must attach first".
//     A pub to the channel: ctrl 403 "permission denied" (its readers may
//     not publish).
//   - leave → ctrl 200; the others get a pres "off". Not attached: ctrl 304
//     "not joined".
//
// Every ctrl and meta answering a request carries the request's id; data and
// pres frames carry none, as Tinode does.

// DefaultTinodeTopics is how many group topics every user is subscribed to.
const DefaultTinodeTopics = 3

// TinodeChannel is the channel every user reads and none may publish to.
const TinodeChannel = "chnTressi"

// tinodeStored is how many messages a topic keeps for "get data".
const tinodeStored = 10

// tinodePool is how many group topics exist; each user is subscribed to
// TinodeTopics of them, so a pub fans out to the sessions of the users that
// share the topic, not to every session of the run.
const tinodePool = 64

type tinodeHub struct {
	s       *Server
	mu      sync.Mutex
	topics  map[string]*tinodeTopic
	names   []string
	perUser int
}

// userTopics is the group topics user is subscribed to: perUser of them
// picked by a hash of the name, the same on every call.
func (h *tinodeHub) userTopics(user string) []string {
	var out []string
	seed := uint32(2166136261)
	for _, c := range []byte(user) {
		seed = (seed ^ uint32(c)) * 16777619
	}
	for i := 0; len(out) < h.perUser && i < 4*tinodePool; i++ {
		seed = seed*1664525 + 1013904223
		name := h.names[int(seed>>8)%tinodePool]
		dup := false
		for _, o := range out {
			dup = dup || o == name
		}
		if !dup {
			out = append(out, name)
		}
	}
	return out
}

type tinodeTopic struct {
	channel bool // readers may not publish
	seq     int
	subs    map[*wsConn]bool
	stored  []json.RawMessage // the last tinodeStored data frames
}

func newTinodeHub(s *Server, topics int) *tinodeHub {
	h := &tinodeHub{s: s, topics: map[string]*tinodeTopic{}, perUser: min(topics, tinodePool)}
	for i := range tinodePool {
		name := fmt.Sprintf("grpTressi%d", i)
		h.names = append(h.names, name)
		h.topics[name] = &tinodeTopic{subs: map[*wsConn]bool{}}
	}
	h.topics[TinodeChannel] = &tinodeTopic{subs: map[*wsConn]bool{}, channel: true}
	return h
}

func (s *Server) tinodeChannel(ctx *fasthttp.RequestCtx) {
	s.upgrade(ctx, s.tinode, nil)
}

// tinodeMsg is a client message: exactly one of its fields is set.
type tinodeMsg struct {
	Hi *struct {
		ID  string `json:"id"`
		Ver string `json:"ver"`
	} `json:"hi"`
	Login *struct {
		ID     string `json:"id"`
		Scheme string `json:"scheme"`
		Secret string `json:"secret"`
	} `json:"login"`
	Sub *struct {
		ID    string `json:"id"`
		Topic string `json:"topic"`
		Get   *struct {
			What string `json:"what"`
		} `json:"get"`
	} `json:"sub"`
	Get *struct {
		ID    string `json:"id"`
		Topic string `json:"topic"`
		What  string `json:"what"`
	} `json:"get"`
	Pub *struct {
		ID      string          `json:"id"`
		Topic   string          `json:"topic"`
		NoEcho  bool            `json:"noecho"`
		Content json.RawMessage `json:"content"`
	} `json:"pub"`
	Leave *struct {
		ID    string `json:"id"`
		Topic string `json:"topic"`
	} `json:"leave"`
	Note json.RawMessage `json:"note"`
}

type tinodeCtrl struct {
	ID     string         `json:"id,omitempty"`
	Topic  string         `json:"topic,omitempty"`
	Params map[string]any `json:"params,omitempty"`
	Code   int            `json:"code"`
	Text   string         `json:"text"`
	TS     string         `json:"ts"`
}

func now() string { return time.Now().UTC().Format("2006-01-02T15:04:05.000Z") }

func (h *tinodeHub) ctrl(c *wsConn, id, topic string, code int, text string, params map[string]any) {
	h.frame(c, map[string]any{"ctrl": tinodeCtrl{ID: id, Topic: topic, Params: params, Code: code, Text: text, TS: now()}})
}

func (h *tinodeHub) frame(c *wsConn, v any) {
	b, _ := json.Marshal(v)
	c.send(ws.OpText, b)
}

func (h *tinodeHub) message(c *wsConn, op ws.Opcode, p []byte) {
	var m tinodeMsg
	if op != ws.OpText || json.Unmarshal(p, &m) != nil {
		h.ctrl(c, "", "", 400, "malformed", nil)
		return
	}
	switch {
	case m.Hi != nil:
		h.ctrl(c, m.Hi.ID, "", 201, "created", map[string]any{"build": "tressi-target", "ver": "0.22", "sid": fmt.Sprintf("%p", c)})
	case m.Login != nil:
		h.login(c, m.Login.ID, m.Login.Scheme, m.Login.Secret)
	case m.Note != nil:
		// Tinode answers notes with nothing.
	case c.user == "":
		id := firstID(m)
		h.ctrl(c, id, "", 401, "authentication required", nil)
	case m.Sub != nil:
		what := ""
		if m.Sub.Get != nil {
			what = m.Sub.Get.What
		}
		h.sub(c, m.Sub.ID, m.Sub.Topic, what)
	case m.Get != nil:
		h.get(c, m.Get.ID, m.Get.Topic, m.Get.What)
	case m.Pub != nil:
		h.pub(c, m.Pub.ID, m.Pub.Topic, m.Pub.Content, m.Pub.NoEcho)
	case m.Leave != nil:
		h.leave(c, m.Leave.ID, m.Leave.Topic)
	default:
		h.ctrl(c, "", "", 400, "malformed", nil)
	}
}

func firstID(m tinodeMsg) string {
	switch {
	case m.Sub != nil:
		return m.Sub.ID
	case m.Get != nil:
		return m.Get.ID
	case m.Pub != nil:
		return m.Pub.ID
	case m.Leave != nil:
		return m.Leave.ID
	}
	return ""
}

func (h *tinodeHub) login(c *wsConn, id, scheme, secret string) {
	var user string
	switch scheme {
	case "basic":
		raw, err := base64.StdEncoding.DecodeString(secret)
		name, pass, ok := strings.Cut(string(raw), ":")
		if err != nil || !ok || name == "" || pass != name+"123" {
			h.ctrl(c, id, "", 401, "authentication failed", nil)
			return
		}
		user = name
	case "token":
		name, ok := h.s.auth.User(secret)
		if !ok {
			h.ctrl(c, id, "", 401, "authentication failed", nil)
			return
		}
		user = name
	default:
		h.ctrl(c, id, "", 401, "authentication failed", map[string]any{"what": "unknown scheme"})
		return
	}
	c.user = user
	h.ctrl(c, id, "", 200, "ok", map[string]any{
		"user": "usr" + user, "authlvl": "auth", "token": h.s.auth.Token(user),
		"expires": time.Now().Add(14 * 24 * time.Hour).UTC().Format(time.RFC3339),
	})
}

func (h *tinodeHub) sub(c *wsConn, id, topic, what string) {
	if topic == "me" {
		if c.attached["me"] {
			h.ctrl(c, id, topic, 304, "already subscribed", nil)
			return
		}
		h.attach(c, "me")
		h.ctrl(c, id, topic, 200, "ok", nil)
		if hasWord(what, "desc") {
			h.frame(c, map[string]any{"meta": map[string]any{"id": id, "topic": "me", "ts": now(),
				"desc": map[string]any{"public": map[string]any{"fn": c.user}}}})
		}
		return
	}
	h.mu.Lock()
	t := h.topics[topic]
	if t == nil {
		h.mu.Unlock()
		h.ctrl(c, id, topic, 404, "not found", nil)
		return
	}
	if t.subs[c] {
		h.mu.Unlock()
		h.ctrl(c, id, topic, 304, "already subscribed", nil)
		return
	}
	others := h.membersLocked(t, c)
	t.subs[c] = true
	h.attachLocked(c, topic)
	stored := append([]json.RawMessage(nil), t.stored...)
	h.mu.Unlock()

	h.ctrl(c, id, topic, 200, "ok", nil)
	for _, o := range others {
		h.frame(o, map[string]any{"pres": map[string]any{"topic": topic, "src": "usr" + c.user, "what": "on"}})
	}
	for _, w := range strings.Fields(what) {
		switch w {
		case "desc":
			h.frame(c, map[string]any{"meta": map[string]any{"id": id, "topic": topic, "ts": now(),
				"desc": map[string]any{"public": map[string]any{"fn": topic}}}})
		case "sub":
			h.frame(c, map[string]any{"meta": map[string]any{"id": id, "topic": topic, "ts": now(),
				"sub": []map[string]any{{"user": "usr" + c.user, "online": true}}}})
		case "data":
			for _, d := range stored {
				c.send(ws.OpText, d)
			}
			if len(stored) > 0 {
				h.ctrl(c, id, topic, 208, "delivered", map[string]any{"what": "data", "count": len(stored)})
			} else {
				h.ctrl(c, id, topic, 204, "no content", map[string]any{"what": "data"})
			}
		case "del":
			h.ctrl(c, id, topic, 204, "no content", map[string]any{"what": "del"})
		}
	}
}

func (h *tinodeHub) get(c *wsConn, id, topic, what string) {
	if !h.isAttached(c, topic) {
		h.ctrl(c, id, topic, 409, "must attach first", nil)
		return
	}
	if topic == "me" && hasWord(what, "sub") {
		names := append(h.userTopics(c.user), TinodeChannel)
		subs := make([]map[string]any, len(names))
		for i, n := range names {
			subs[i] = map[string]any{"topic": n, "acs": map[string]any{"mode": "JRWPS"}}
		}
		h.frame(c, map[string]any{"meta": map[string]any{"id": id, "topic": topic, "ts": now(), "sub": subs}})
		return
	}
	h.ctrl(c, id, topic, 204, "no content", map[string]any{"what": what})
}

func (h *tinodeHub) pub(c *wsConn, id, topic string, content json.RawMessage, noecho bool) {
	h.mu.Lock()
	t := h.topics[topic]
	if t == nil || !t.subs[c] {
		h.mu.Unlock()
		h.ctrl(c, id, topic, 409, "must attach first", nil)
		return
	}
	if t.channel {
		h.mu.Unlock()
		h.ctrl(c, id, topic, 403, "permission denied", nil)
		return
	}
	t.seq++
	seq := t.seq
	data, _ := json.Marshal(map[string]any{"data": map[string]any{
		"topic": topic, "from": "usr" + c.user, "ts": now(), "seq": seq, "content": content}})
	t.stored = append(t.stored, data)
	if len(t.stored) > tinodeStored {
		t.stored = t.stored[len(t.stored)-tinodeStored:]
	}
	members := h.membersLocked(t, nil)
	h.mu.Unlock()

	h.ctrl(c, id, topic, 202, "accepted", map[string]any{"seq": seq})
	for _, m := range members {
		if m != c || !noecho {
			m.send(ws.OpText, data)
		}
	}
}

func (h *tinodeHub) leave(c *wsConn, id, topic string) {
	h.mu.Lock()
	t := h.topics[topic]
	attached := c.attached[topic]
	delete(c.attached, topic)
	var others []*wsConn
	if t != nil && t.subs[c] {
		delete(t.subs, c)
		others = h.membersLocked(t, nil)
	}
	h.mu.Unlock()
	if !attached {
		h.ctrl(c, id, topic, 304, "not joined", nil)
		return
	}
	h.ctrl(c, id, topic, 200, "ok", nil)
	for _, o := range others {
		h.frame(o, map[string]any{"pres": map[string]any{"topic": topic, "src": "usr" + c.user, "what": "off"}})
	}
}

func (h *tinodeHub) gone(c *wsConn) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for name := range c.attached {
		if t := h.topics[name]; t != nil {
			delete(t.subs, c)
		}
	}
	c.attached = nil
}

func (h *tinodeHub) attach(c *wsConn, topic string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.attachLocked(c, topic)
}

func (h *tinodeHub) attachLocked(c *wsConn, topic string) {
	if c.attached == nil {
		c.attached = map[string]bool{}
	}
	c.attached[topic] = true
}

func (h *tinodeHub) isAttached(c *wsConn, topic string) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return c.attached[topic]
}

func (h *tinodeHub) membersLocked(t *tinodeTopic, except *wsConn) []*wsConn {
	out := make([]*wsConn, 0, len(t.subs))
	for m := range t.subs {
		if m != except {
			out = append(out, m)
		}
	}
	return out
}

func hasWord(s, w string) bool {
	for _, f := range strings.Fields(s) {
		if f == w {
			return true
		}
	}
	return false
}
