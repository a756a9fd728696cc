package cookiejar

import "testing"

func TestSetFromHead(t *testing.T) {
	var j Jar
	head := "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nSet-Cookie: sid=abc; Path=/; HttpOnly\r\nset-cookie: pref=1; Path=/app\r\nSet-Cookie2: old=1\r\nX-Set-Cookie: no=1\r\n"
	if n := j.SetFromHead([]byte(head), "h", []byte("/login"), false, now); n != 2 {
		t.Fatalf("stored %d, want 2", n)
	}
	if got, _ := j.AppendHeader(nil, "h", []byte("/app/x"), false, now); string(got) != "pref=1; sid=abc" {
		t.Errorf("Cookie %q", got)
	}
	// HTTP/2's fields, as the loop keeps them.
	var h2 Jar
	h2.SetFromHead([]byte("HTTP/2 200\r\nset-cookie: a=1\r\n"), "h", []byte("/"), true, now)
	if got, _ := h2.AppendHeader(nil, "h", []byte("/"), true, now); string(got) != "a=1" {
		t.Errorf("h2 Cookie %q", got)
	}
}

func TestAppendRequest(t *testing.T) {
	var j Jar
	j.SetCookie("sid=abc", "api.example", "/", false, now)
	j.SetCookie("deep=1; Path=/a", "api.example", "/", false, now)
	for _, c := range []struct{ req, want string }{
		{"GET /a/b?x=1 HTTP/1.1\r\nHost: api.example\r\n\r\n", "GET /a/b?x=1 HTTP/1.1\r\nHost: api.example\r\nCookie: deep=1; sid=abc\r\n\r\n"},
		{"POST / HTTP/1.1\r\nHost: api.example\r\nContent-Length: 2\r\n\r\nhi", "POST / HTTP/1.1\r\nHost: api.example\r\nContent-Length: 2\r\nCookie: sid=abc\r\n\r\nhi"},
		// The plan's own Cookie header gets the jar's appended.
		{"GET / HTTP/1.1\r\ncookie: mine=1\r\nHost: api.example\r\n\r\n", "GET / HTTP/1.1\r\ncookie: mine=1; sid=abc\r\nHost: api.example\r\n\r\n"},
		{"GET http://api.example/a HTTP/1.1\r\nHost: api.example\r\n\r\n", "GET http://api.example/a HTTP/1.1\r\nHost: api.example\r\nCookie: deep=1; sid=abc\r\n\r\n"},
	} {
		got, ok := j.AppendRequest([]byte("prefix|"), []byte(c.req), "api.example", false, now)
		if !ok || string(got) != "prefix|"+c.want {
			t.Errorf("%q:\n got %q (%v)\nwant %q", c.req, got, ok, c.want)
		}
	}
	// No cookie for this host: nothing appended, the request goes as is.
	got, ok := j.AppendRequest([]byte("p"), []byte("GET / HTTP/1.1\r\n\r\n"), "other.example", false, now)
	if ok || string(got) != "p" {
		t.Errorf("other host: %q %v", got, ok)
	}
	if _, ok := j.AppendRequest(nil, []byte("garbage"), "api.example", false, now); ok {
		t.Error("garbage was rewritten")
	}
}

func TestRequestPath(t *testing.T) {
	for in, want := range map[string]string{
		"GET /a/b?q=1 HTTP/1.1\r\nHost: h\r\n\r\n": "/a/b",
		"GET http://h:80/x#f HTTP/1.1\r\n":         "/x",
		"GET http://h HTTP/1.1\r\n":                "/",
		"garbage":                                  "",
	} {
		if got := string(RequestPath([]byte(in))); got != want {
			t.Errorf("RequestPath(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestAppendRequestAllocatesNothing(t *testing.T) {
	var j Jar
	j.SetCookie("sid=0123456789abcdef; Path=/; HttpOnly", "api.example", "/login", false, now)
	req := []byte("GET /me HTTP/1.1\r\nHost: api.example\r\nUser-Agent: tressi\r\n\r\n")
	buf := make([]byte, 0, 512)
	if n := testing.AllocsPerRun(100, func() { buf, _ = j.AppendRequest(buf[:0], req, "api.example", false, now) }); n != 0 {
		t.Errorf("%.1f allocations per request", n)
	}
}

// Whatever bytes it is handed, AppendRequest either leaves them alone or
// adds only the jar's cookies: the result is the request with text
// inserted at one place, and the request's body is never touched.
func FuzzAppendRequest(f *testing.F) {
	f.Add([]byte("GET /a HTTP/1.1\r\nHost: h\r\n\r\nbody"))
	f.Add([]byte("GET / HTTP/1.1\r\nCookie: x=1\r\n\r\n"))
	f.Add([]byte("\r\n\r\n"))
	f.Fuzz(func(t *testing.T, req []byte) {
		var j Jar
		j.SetCookie("sid=abc", "h", "/", false, now)
		got, ok := j.AppendRequest(nil, req, "h", false, now)
		if !ok {
			if len(got) != 0 {
				t.Fatalf("appended %q without cookies", got)
			}
			return
		}
		if len(got) <= len(req) {
			t.Fatalf("%q became %q", req, got)
		}
		i := 0
		for i < len(req) && got[i] == req[i] {
			i++
		}
		if string(got[len(got)-(len(req)-i):]) != string(req[i:]) {
			t.Fatalf("%q became %q: more than one insertion", req, got)
		}
	})
}
