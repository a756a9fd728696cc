package h2

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
)

// seen is the meaning of a request as a server sees it.
type seen struct {
	method, uri, authority, proto string
	headers                       []string
	body                          string
}

// TestSameMeaningAsNetHTTP sends the same requests with net/http's HTTP/2
// client and with Conn (from the HTTP/1.1 bytes both engines render), and
// checks that the server sees the same method, path, authority, header
// fields and body.
func TestSameMeaningAsNetHTTP(t *testing.T) {
	var mu sync.Mutex
	var got []seen
	srv := startTLS(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		var hs []string
		for k, vs := range r.Header {
			hs = append(hs, k+": "+strings.Join(vs, ","))
		}
		slices.Sort(hs)
		mu.Lock()
		got = append(got, seen{r.Method, r.URL.RequestURI(), r.Host, r.Proto, hs, string(body)})
		mu.Unlock()
	}), nil)
	client := srv.Client()
	host := srv.Listener.Addr().String()
	cases := []struct {
		method, path, body string
		headers            [][2]string
	}{
		{"GET", "/", "", nil},
		{"GET", "/a/b?x=1&y=%20z", "", [][2]string{{"Accept", "application/json"}, {"X-Trace", "abc"}}},
		{"POST", "/login", `{"user":"alice"}`, [][2]string{{"Content-Type", "application/json"}, {"Authorization", "Bearer t0k"}}},
		{"PUT", "/items/7", strings.Repeat("x", 70000), [][2]string{{"Content-Type", "text/plain"}}},
		{"DELETE", "/items/7", "", [][2]string{{"X-Multi", "1"}}},
	}
	p := newPump(t, dialTLS(t, srv), Config{})
	for i, c := range cases {
		// net/http's client.
		req, _ := http.NewRequest(c.method, "https://"+host+c.path, strings.NewReader(c.body))
		if c.body == "" {
			req.Body = nil
		}
		req.Header.Set("User-Agent", "tressi")
		req.Header.Set("Accept-Encoding", "identity")
		for _, h := range c.headers {
			req.Header.Set(h[0], h[1])
		}
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		// Conn, from HTTP/1.1 bytes as the engines render them.
		var wire bytes.Buffer
		fmt.Fprintf(&wire, "%s %s HTTP/1.1\r\nHost: %s\r\nUser-Agent: tressi\r\nAccept-Encoding: identity\r\n", c.method, c.path, host)
		for _, h := range c.headers {
			fmt.Fprintf(&wire, "%s: %s\r\n", h[0], h[1])
		}
		if c.body != "" {
			fmt.Fprintf(&wire, "Content-Length: %d\r\n", len(c.body))
		}
		wire.WriteString("\r\n" + c.body)
		var r Request
		if err := FromHTTP1(wire.Bytes(), []byte("https"), &r); err != nil {
			t.Fatal(err)
		}
		p.c.Start(&r, int64(i))
		p.until(func() bool { return p.rec.closed == i+1 })
		if a := p.rec.answers[int64(i)]; a.err != nil || a.status != 200 {
			t.Fatalf("%s %s: %+v", c.method, c.path, a)
		}
	}
	for i := 0; i < len(got); i += 2 {
		theirs, ours := got[i], got[i+1]
		if fmt.Sprint(theirs) != fmt.Sprint(ours) {
			t.Errorf("request %d differs:\nnet/http: %+v\ntressi:   %+v", i/2, theirs, ours)
		}
	}
}
