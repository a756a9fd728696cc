package h2

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"

	"testing"

	"golang.org/x/net/http2"
)

func TestManyStreamsOverTLS(t *testing.T) {
	srv := startTLS(t, echo, nil)
	p := newPump(t, dialTLS(t, srv), Config{})
	const n = 500
	started := 0
	p.until(func() bool {
		for started < n && p.c.Ready() {
			if _, err := p.c.Start(get("example.test", "/item/"+strconv.Itoa(started)+"?q=1"), int64(started)); err != nil {
				t.Fatal(err)
			}
			started++
		}
		return p.rec.closed == n
	})
	for i := range n {
		a := p.rec.answers[int64(i)]
		want := fmt.Sprintf("GET /item/%d?q=1 0", i)
		if a == nil || a.err != nil || a.status != 200 || a.body.String() != want || a.fields["x-proto"] != "HTTP/2.0" {
			t.Fatalf("stream %d: %+v, want 200 %q over HTTP/2.0", i, a, want)
		}
	}
}

func TestH2CPriorKnowledge(t *testing.T) {
	addr := startH2C(t, echo)
	p := newPump(t, dialTCP(t, addr), Config{})
	req := get(addr, "/plain")
	req.Scheme = []byte("http")
	if _, err := p.c.Start(req, 7); err != nil {
		t.Fatal(err)
	}
	p.until(func() bool { return p.rec.closed == 1 })
	if a := p.rec.answers[7]; a.err != nil || a.status != 200 || a.body.String() != "GET /plain 0" {
		t.Fatalf("got %+v", a)
	}
}

// Bodies larger than every initial window must flow both ways: ours out
// as the server opens its windows, the server's in as we open ours.
func TestBodiesBeyondTheWindows(t *testing.T) {
	big := bytes.Repeat([]byte("0123456789abcdef"), 1<<16) // 1 MiB
	sum := sha256.Sum256(big)
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == "POST" {
			b, _ := io.ReadAll(r.Body)
			s := sha256.Sum256(b)
			fmt.Fprintf(w, "%x", s)
			return
		}
		n, _ := strconv.Atoi(r.URL.Query().Get("n"))
		w.Write(bytes.Repeat([]byte("z"), n))
	})
	srv := startTLS(t, h, nil)
	p := newPump(t, dialTLS(t, srv), Config{})
	for i := range 4 {
		post := get("x", "/upload")
		post.Method, post.Body = []byte("POST"), big
		p.c.Start(post, int64(i))
		p.c.Start(get("x", "/download?n="+strconv.Itoa(20<<20)), int64(100+i))
	}
	p.until(func() bool { return p.rec.closed == 8 })
	for i := range 4 {
		if a := p.rec.answers[int64(i)]; a.err != nil || a.body.String() != fmt.Sprintf("%x", sum) {
			t.Fatalf("upload %d: err %v, server hashed %q", i, a.err, a.body.String())
		}
		if a := p.rec.answers[int64(100+i)]; a.err != nil || a.body.Len() != 20<<20 {
			t.Fatalf("download %d: err %v, %d bytes", i, a.err, a.body.Len())
		}
	}
}

func TestMaxConcurrentStreamsHonoured(t *testing.T) {
	release := make(chan struct{})
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		<-release
		w.Write([]byte("ok"))
	})
	srv := startTLS(t, h, func(s *http.Server) { s.HTTP2 = &http.HTTP2Config{MaxConcurrentStreams: 3} })
	p := newPump(t, dialTLS(t, srv), Config{MaxStreams: 50})
	p.until(func() bool { return p.c.sawSettings })
	started := 0
	for p.c.Ready() {
		p.c.Start(get("x", "/"), int64(started))
		started++
	}
	if started != 3 {
		t.Fatalf("started %d streams, the server allows 3", started)
	}
	close(release)
	p.until(func() bool { return p.rec.closed == 3 })
	if !p.c.Ready() {
		t.Fatal("not ready after the streams ended")
	}
}

func TestTrailersAndFieldsOnlyWhenWanted(t *testing.T) {
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Trailer", "X-Sum")
		w.Header().Set("X-Token", "abc")
		w.Write([]byte("body"))
		w.Header().Set("X-Sum", "42")
	})
	srv := startTLS(t, h, nil)
	p := newPump(t, dialTLS(t, srv), Config{})
	p.c.Start(get("x", "/"), 1)
	p.until(func() bool { return p.rec.closed == 1 })
	a := p.rec.answers[1]
	if a.err != nil || a.fields["x-token"] != "abc" || a.fields["x-sum"] != "42" || a.body.String() != "body" {
		t.Fatalf("got %+v %v", a, a.fields)
	}
	p.rec.wantFields = false
	p.c.Start(get("x", "/"), 2)
	p.until(func() bool { return p.rec.closed == 2 })
	if a := p.rec.answers[2]; a.err != nil || a.status != 200 || len(a.fields) != 0 || a.body.String() != "body" {
		t.Fatalf("fields were not wanted, got %+v %v", a, a.fields)
	}
}

func TestServerResetIsAStreamError(t *testing.T) {
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/abort" {
			panic(http.ErrAbortHandler)
		}
		w.Write([]byte("fine"))
	})
	srv := startTLS(t, h, nil)
	srv.Config.ErrorLog = nil
	p := newPump(t, dialTLS(t, srv), Config{})
	p.c.Start(get("x", "/abort"), 1)
	p.c.Start(get("x", "/ok"), 2)
	p.until(func() bool { return p.rec.closed == 2 })
	var se *StreamError
	if a := p.rec.answers[1]; !errors.As(a.err, &se) {
		t.Fatalf("aborted stream: %v, want a *StreamError", a.err)
	}
	if a := p.rec.answers[2]; a.err != nil || a.body.String() != "fine" {
		t.Fatalf("the other stream: %+v", a)
	}
}

// A scripted server: GOAWAY names stream 1 as the last it processed, and
// refuses stream 7 by RST_STREAM: 3 and 5 and 7 were never processed.
func TestGoAwayAndRefusedStreamsAreUnprocessed(t *testing.T) {
	addr := scriptedServer(t, func(fr *http2.Framer, streams []uint32) {
		fr.WriteRSTStream(7, http2.ErrCodeRefusedStream)
		fr.WriteGoAway(1, http2.ErrCodeNo, nil)
		writeResponse(fr, 1, "200", "one")
	}, 4)
	p := newPump(t, dialTCP(t, addr), Config{})
	for i := range 4 {
		p.c.Start(get("x", "/"), int64(i))
	}
	p.until(func() bool { return p.rec.closed == 4 })
	if a := p.rec.answers[0]; a.err != nil || a.body.String() != "one" {
		t.Fatalf("stream 1: %+v", a)
	}
	for i := 1; i < 4; i++ {
		if a := p.rec.answers[int64(i)]; !errors.Is(a.err, ErrUnprocessed) {
			t.Fatalf("stream %d: %v, want ErrUnprocessed", 2*i+1, a.err)
		}
	}
	if p.c.Ready() || !p.c.Retired() {
		t.Fatal("a connection going away must take no new stream")
	}
	if n := p.c.ProcessedBeforeGoAway(); n != 1 {
		t.Fatalf("GOAWAY naming stream 1 processed %d streams, want 1", n)
	}
}

// A connection limited to n streams starts n and is then retired, as a
// server's GOAWAY would leave it; a GOAWAY with an error teaches nothing.
func TestLimitRetiresAfterNStreams(t *testing.T) {
	addr := scriptedServer(t, func(fr *http2.Framer, streams []uint32) {
		for _, id := range streams {
			writeResponse(fr, id, "200", "ok")
		}
		fr.WriteGoAway(streams[len(streams)-1], http2.ErrCodeEnhanceYourCalm, nil)
	}, 3)
	p := newPump(t, dialTCP(t, addr), Config{})
	p.c.Limit(3)
	for i := range 3 {
		if !p.c.Ready() || p.c.Retired() {
			t.Fatalf("stream %d of 3: the connection should take it", i+1)
		}
		p.c.Start(get("x", "/"), int64(i))
	}
	if p.c.Ready() || !p.c.Retired() || p.c.Started() != 3 {
		t.Fatalf("after 3 of a limit of 3: ready %v, retired %v, started %d", p.c.Ready(), p.c.Retired(), p.c.Started())
	}
	p.until(func() bool { return p.rec.closed == 3 && p.c.GoingAway() })
	if n := p.c.ProcessedBeforeGoAway(); n != 0 {
		t.Fatalf("a GOAWAY with an error said %d processed; want 0 (nothing to learn)", n)
	}
}

func TestInterimResponsesAreSkipped(t *testing.T) {
	addr := scriptedServer(t, func(fr *http2.Framer, streams []uint32) {
		writeHeaders(fr, 1, false, ":status", "103", "link", "</a.css>")
		writeResponse(fr, 1, "204", "")
	}, 1)
	p := newPump(t, dialTCP(t, addr), Config{})
	p.c.Start(get("x", "/"), 1)
	p.until(func() bool { return p.rec.closed == 1 })
	if a := p.rec.answers[1]; a.err != nil || a.status != 204 || a.fields["link"] != "" {
		t.Fatalf("got %+v %v", a, a.fields)
	}
}

func TestProtocolErrorsFailTheConnection(t *testing.T) {
	cases := map[string]func(fr *http2.Framer){
		"data on a stream never opened": func(fr *http2.Framer) { fr.WriteData(9, true, []byte("x")) },
		"push promise": func(fr *http2.Framer) {
			fr.WritePushPromise(http2.PushPromiseParam{StreamID: 1, PromiseID: 2, BlockFragment: []byte{0x88}, EndHeaders: true})
		},
		"window overflow": func(fr *http2.Framer) { fr.WriteWindowUpdate(0, 1<<31-1) },
	}
	for name, script := range cases {
		t.Run(name, func(t *testing.T) {
			addr := scriptedServer(t, func(fr *http2.Framer, _ []uint32) { script(fr) }, 1)
			p := newPump(t, dialTCP(t, addr), Config{})
			p.c.Start(get("x", "/"), 1)
			p.until(func() bool { return p.rec.closed == 1 })
			var ce *ConnError
			if a := p.rec.answers[1]; !errors.As(a.err, &ce) || p.c.Err() == nil {
				t.Fatalf("stream ended with %v, connection %v: want a ConnError", a.err, p.c.Err())
			}
		})
	}
}

func TestFromHTTP1(t *testing.T) {
	wire := "POST /a/b?c=d HTTP/1.1\r\nHost: api.test:8443\r\nContent-Type: application/json\r\nConnection: keep-alive\r\nX-Id:  7 \r\n\r\n{\"x\":1}"
	var req Request
	if err := FromHTTP1([]byte(wire), []byte("https"), &req); err != nil {
		t.Fatal(err)
	}
	got := fmt.Sprintf("%s %s %s %s %q", req.Method, req.Scheme, req.Authority, req.Path, req.Body)
	if got != `POST https api.test:8443 /a/b?c=d "{\"x\":1}"` || len(req.Fields) != 3 || string(req.Fields[2].Value) != "7" {
		t.Fatalf("got %s %q", got, req.Fields)
	}
	for _, bad := range []string{"", "GET\r\n\r\n", "GET / HTTP/1.1\r\nNoColon\r\n\r\n", "GET / HTTP/1.1\r\n\r\n", "GET / HTTP/1.1\r\nHost: x\r\n"} {
		if err := FromHTTP1([]byte(bad), nil, &req); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

func TestConnectionSpecificFieldsAreDropped(t *testing.T) {
	var seen http.Header
	srv := startTLS(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { seen = r.Header.Clone() }), nil)
	p := newPump(t, dialTLS(t, srv), Config{})
	req := get("x", "/")
	for _, f := range []string{"Connection", "Keep-Alive", "Transfer-Encoding", "Upgrade", "Proxy-Connection", "X-Keep"} {
		req.Fields = append(req.Fields, Field{Name: []byte(f), Value: []byte("v")})
	}
	req.Fields = append(req.Fields, Field{Name: []byte("TE"), Value: []byte("gzip")})
	p.c.Start(req, 1)
	p.until(func() bool { return p.rec.closed == 1 })
	if a := p.rec.answers[1]; a.err != nil || a.status != 200 {
		t.Fatalf("got %+v", a)
	}
	if len(seen) != 1 || seen.Get("X-Keep") != "v" {
		t.Fatalf("server saw %v, want only X-Keep", seen)
	}
}

// A request sent with the header block AppendBlock encoded once puts the
// same bytes on the wire as one Start encodes itself, fields dropped and
// lower-cased alike, CONTINUATIONs and all.
func TestAppendBlockIsWhatStartSends(t *testing.T) {
	long := Field{Name: []byte("X-Long"), Value: bytes.Repeat([]byte("v"), 40<<10)}
	for _, req := range []*Request{
		get("example.test", "/a?b=c"),
		{Method: []byte("POST"), Scheme: []byte("https"), Authority: []byte("api.test"), Path: []byte("/p"),
			Fields: []Field{{Name: []byte("Content-Type"), Value: []byte("application/json")}, {Name: []byte("Connection"), Value: []byte("keep-alive")}, {Name: []byte("TE"), Value: []byte("gzip")}},
			Body:   []byte(`{"a":1}`)},
		{Method: []byte("GET"), Scheme: []byte("http"), Authority: []byte("h"), Path: []byte("/"), Fields: []Field{long}},
	} {
		encoded := NewConn(newRecorder(), Config{})
		if _, err := encoded.Start(req, 1); err != nil {
			t.Fatal(err)
		}
		block, err := AppendBlock(nil, req)
		if err != nil {
			t.Fatal(err)
		}
		pre := *req
		pre.Block = block
		given := NewConn(newRecorder(), Config{})
		if _, err := given.Start(&pre, 1); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(encoded.Output(), given.Output()) {
			t.Fatalf("%s %s: a request with its block encoded once sends other bytes", req.Method, req.Path)
		}
	}
}
