package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	osexec "os/exec"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
)

// recordHAR loads url in headless Chromium and returns the HAR of what the
// page sent, built from the DevTools protocol's Network events, as
// DevTools' own "Save all as HAR" builds it (headless Chromium has no
// command-line switch that writes a HAR): Network.requestWillBeSent gives
// the request and its start (wallTime), requestWillBeSentExtraInfo the
// headers as sent on the wire (cookies included), responseReceived the
// status, loadingFinished the end; a body Chromium did not inline comes
// from Network.getRequestPostData. It waits until the page's body carries
// data-done="true" and every request it started has finished.
func recordHAR(t *testing.T, url string) []byte {
	t.Helper()
	chromium, err := osexec.LookPath("chromium")
	if err != nil {
		t.Skip("chromium is not on PATH (CI installs it)")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := osexec.CommandContext(ctx, chromium, "--headless", "--no-sandbox", "--disable-gpu",
		"--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run",
		"--remote-debugging-address=127.0.0.1", "--remote-debugging-port=0", "--user-data-dir="+t.TempDir(), "about:blank")
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := startOnNormalThread(cmd); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	browserWS := ""
	sc := bufio.NewScanner(stderr)
	var said strings.Builder
	for sc.Scan() {
		said.WriteString(sc.Text() + "\n")
		if m := regexp.MustCompile(`DevTools listening on (ws://\S+)`).FindStringSubmatch(sc.Text()); m != nil {
			browserWS = m[1]
			break
		}
	}
	if browserWS == "" {
		t.Fatalf("chromium printed no DevTools address:\n%s", said.String())
	}
	go func() { _, _ = io.Copy(io.Discard, stderr) }()
	page := pageDebuggerURL(t, ctx, browserWS)
	conn, _, err := websocket.Dial(ctx, page, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.CloseNow()
	conn.SetReadLimit(64 << 20)
	cdp := &cdpClient{t: t, ctx: ctx, conn: conn, replies: map[int]json.RawMessage{}}
	cdp.call("Network.enable", nil)
	cdp.call("Page.enable", nil)
	cdp.call("Page.navigate", map[string]any{"url": url})
	deadline := time.Now().Add(30 * time.Second)
	for {
		var r struct {
			Result struct {
				Value bool `json:"value"`
			} `json:"result"`
		}
		cdp.decode(cdp.call("Runtime.evaluate", map[string]any{"expression": `document.body && document.body.dataset.done === "true"`, "returnByValue": true}), &r)
		if r.Result.Value && cdp.allFinished() {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the page did not finish its session within 30 s (%d requests seen)", len(cdp.order))
		}
		time.Sleep(100 * time.Millisecond)
	}
	return cdp.har()
}

// pageDebuggerURL finds the page target's DevTools WebSocket, from the
// browser's /json/list beside the address it printed.
func pageDebuggerURL(t *testing.T, ctx context.Context, browserWS string) string {
	host := strings.TrimPrefix(browserWS, "ws://")
	host = host[:strings.IndexByte(host, '/')]
	req, _ := http.NewRequestWithContext(ctx, "GET", "http://"+host+"/json/list", nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var targets []struct {
		Type string `json:"type"`
		WS   string `json:"webSocketDebuggerUrl"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&targets); err != nil {
		t.Fatal(err)
	}
	for _, tg := range targets {
		if tg.Type == "page" {
			return tg.WS
		}
	}
	t.Fatalf("chromium lists no page target: %+v", targets)
	return ""
}

// cdpClient speaks the DevTools protocol over one page's WebSocket and
// keeps the Network events it reads while waiting for replies.
type cdpClient struct {
	t       *testing.T
	ctx     context.Context
	conn    *websocket.Conn
	next    int
	replies map[int]json.RawMessage
	order   []string // request ids, as first seen
	reqs    map[string]*cdpRequest
}

type cdpRequest struct {
	id        string
	method    string
	url       string
	headers   map[string]string // from requestWillBeSent
	wire      map[string]string // from requestWillBeSentExtraInfo: what went out
	postData  string
	hasPost   bool
	wallTime  float64 // s since the epoch
	start     float64 // monotonic s
	end       float64
	status    int
	finished  bool
	mimeType  string
	fromCache bool
}

func (c *cdpClient) call(method string, params any) json.RawMessage {
	c.t.Helper()
	c.next++
	id := c.next
	msg, _ := json.Marshal(map[string]any{"id": id, "method": method, "params": params})
	if err := c.conn.Write(c.ctx, websocket.MessageText, msg); err != nil {
		c.t.Fatalf("%s: %v", method, err)
	}
	for {
		if r, ok := c.replies[id]; ok {
			delete(c.replies, id)
			return r
		}
		_, data, err := c.conn.Read(c.ctx)
		if err != nil {
			c.t.Fatalf("%s: %v", method, err)
		}
		var m struct {
			ID     int             `json:"id"`
			Method string          `json:"method"`
			Params json.RawMessage `json:"params"`
			Result json.RawMessage `json:"result"`
			Error  json.RawMessage `json:"error"`
		}
		if err := json.Unmarshal(data, &m); err != nil {
			c.t.Fatal(err)
		}
		if m.ID != 0 {
			if m.Error != nil {
				m.Result = nil
			}
			c.replies[m.ID] = m.Result
			continue
		}
		c.event(m.Method, m.Params)
	}
}

func (c *cdpClient) decode(raw json.RawMessage, v any) {
	if raw != nil {
		_ = json.Unmarshal(raw, v)
	}
}

func (c *cdpClient) request(id string) *cdpRequest {
	if c.reqs == nil {
		c.reqs = map[string]*cdpRequest{}
	}
	r := c.reqs[id]
	if r == nil {
		r = &cdpRequest{id: id}
		c.reqs[id] = r
		c.order = append(c.order, id)
	}
	return r
}

func (c *cdpClient) event(method string, params json.RawMessage) {
	var p struct {
		RequestID string  `json:"requestId"`
		WallTime  float64 `json:"wallTime"`
		Timestamp float64 `json:"timestamp"`
		Request   struct {
			URL         string            `json:"url"`
			Method      string            `json:"method"`
			Headers     map[string]string `json:"headers"`
			PostData    string            `json:"postData"`
			HasPostData bool              `json:"hasPostData"`
		} `json:"request"`
		Headers  map[string]string `json:"headers"`
		Response struct {
			Status            int    `json:"status"`
			MimeType          string `json:"mimeType"`
			FromDiskCache     bool   `json:"fromDiskCache"`
			FromServiceWorker bool   `json:"fromServiceWorker"`
		} `json:"response"`
	}
	_ = json.Unmarshal(params, &p)
	switch method {
	case "Network.requestWillBeSent":
		r := c.request(p.RequestID)
		r.method, r.url, r.headers = p.Request.Method, p.Request.URL, p.Request.Headers
		r.postData, r.hasPost = p.Request.PostData, p.Request.HasPostData
		r.wallTime, r.start = p.WallTime, p.Timestamp
	case "Network.requestWillBeSentExtraInfo":
		c.request(p.RequestID).wire = p.Headers
	case "Network.responseReceived":
		r := c.request(p.RequestID)
		r.status, r.mimeType = p.Response.Status, p.Response.MimeType
		r.fromCache = p.Response.FromDiskCache || p.Response.FromServiceWorker
	case "Network.loadingFinished", "Network.loadingFailed":
		r := c.request(p.RequestID)
		r.end, r.finished = p.Timestamp, true
	}
}

func (c *cdpClient) allFinished() bool {
	for _, id := range c.order {
		if r := c.reqs[id]; r.url != "" && !strings.HasPrefix(r.url, "data:") && !r.finished {
			return false
		}
	}
	return true
}

// har writes the requests as a HAR 1.2 log with one page.
func (c *cdpClient) har() []byte {
	type nv struct {
		Name  string `json:"name"`
		Value string `json:"value"`
	}
	var entries []map[string]any
	var first float64
	for _, id := range c.order {
		r := c.reqs[id]
		if r.url == "" || strings.HasPrefix(r.url, "data:") {
			continue
		}
		if r.hasPost && r.postData == "" {
			var pd struct {
				PostData string `json:"postData"`
			}
			c.decode(c.call("Network.getRequestPostData", map[string]any{"requestId": id}), &pd)
			r.postData = pd.PostData
		}
		hdrs := r.wire
		if hdrs == nil {
			hdrs = r.headers
		}
		var headers []nv
		for k, v := range hdrs {
			headers = append(headers, nv{k, v})
		}
		sort.Slice(headers, func(i, j int) bool { return headers[i].Name < headers[j].Name })
		request := map[string]any{"method": r.method, "url": r.url, "httpVersion": "HTTP/1.1", "headers": headers,
			"queryString": []nv{}, "cookies": []nv{}, "headersSize": -1, "bodySize": len(r.postData)}
		if r.hasPost {
			ct := ""
			for k, v := range hdrs {
				if strings.EqualFold(k, "content-type") {
					ct = v
				}
			}
			request["postData"] = map[string]any{"mimeType": ct, "text": r.postData}
		}
		if first == 0 || r.wallTime < first {
			first = r.wallTime
		}
		entry := map[string]any{
			"pageref":         "page_1",
			"startedDateTime": time.UnixMicro(int64(r.wallTime * 1e6)).UTC().Format("2006-01-02T15:04:05.000Z"),
			"time":            (r.end - r.start) * 1000,
			"request":         request,
			"response": map[string]any{"status": r.status, "statusText": "", "httpVersion": "HTTP/1.1", "headers": []nv{},
				"cookies": []nv{}, "content": map[string]any{"size": 0, "mimeType": r.mimeType}, "redirectURL": "",
				"headersSize": -1, "bodySize": -1},
			"cache": map[string]any{}, "timings": map[string]any{"send": 0, "wait": (r.end - r.start) * 1000, "receive": 0},
		}
		if r.fromCache {
			entry["_fromCache"] = "disk"
		}
		entries = append(entries, entry)
	}
	har := map[string]any{"log": map[string]any{
		"version": "1.2",
		"creator": map[string]any{"name": "tressi test (Chromium DevTools protocol)", "version": "1"},
		"pages": []map[string]any{{"id": "page_1", "title": "tressi browse",
			"startedDateTime": time.UnixMicro(int64(first * 1e6)).UTC().Format("2006-01-02T15:04:05.000Z"),
			"pageTimings":     map[string]any{}}},
		"entries": entries,
	}}
	b, err := json.MarshalIndent(har, "", "  ")
	if err != nil {
		c.t.Fatal(err)
	}
	return b
}
