package run

import (
	"strings"
	"testing"

	"github.com/tressi/tressi/compile"
)

func testOrigins() RedirectOrigins {
	return NewRedirectOrigins(&compile.Schedule{Targets: []compile.Target{
		{Scheme: "http", Host: "127.0.0.1:8080"},
		{Scheme: "http", Host: "127.0.0.2:9090"},
		{Scheme: "https", Host: "API.example"},
	}})
}

func TestRedirectResolve(t *testing.T) {
	o := testOrigins()
	for _, c := range []struct {
		from      int
		reqTarget string
		location  string
		to        int
		path      string
	}{
		{0, "/a/b?x=1", "/c", 0, "/c"},
		{0, "/a/b", "/c?d=1#frag", 0, "/c?d=1"},
		{0, "/a/b", "c", 0, "/a/c"},
		{0, "/a/b/", "../c", 0, "/a/c"},
		{0, "/a/b?x=1", "?page=2", 0, "/a/b?page=2"},
		{0, "/redirect/3", "2", 0, "/redirect/2"},
		{0, "/", "http://127.0.0.1:8080/x", 0, "/x"},
		{0, "/", "HTTP://127.0.0.1:8080", 0, "/"},
		{0, "/", "http://127.0.0.2:9090/y?z", 1, "/y?z"},
		{0, "/", "//127.0.0.2:9090/y", 1, "/y"},
		{0, "/", "http://user:pw@127.0.0.2:9090/y", 1, "/y"},
		{1, "/", "https://api.example:443/v1", 2, "/v1"},
		{1, "/", "https://api.example?q", 2, "/?q"},
		{0, "/", "http://127.0.0.3:8080/x", -1, ""},  // not a target
		{0, "/", "https://127.0.0.1:8080/x", -1, ""}, // another scheme, another origin
		{0, "/", "http://api.example/x", -1, ""},     // port 80, not 443
		{0, "/", "/bad path", -1, ""},                // would break the request line
		{0, "/", "", -1, ""},                         // no URL
		{0, "/", "mailto:someone@example.com", -1, ""},
		{0, "/", "a:00", -1, ""},
	} {
		to, path, ok := o.Resolve(c.from, []byte(c.reqTarget), []byte(c.location), nil)
		if ok != (c.to >= 0) || ok && (to != c.to || string(path) != c.path) {
			t.Errorf("Resolve(%d, %q, %q) = %d %q %v, want %d %q", c.from, c.reqTarget, c.location, to, path, ok, c.to, c.path)
		}
	}
}

func TestRedirectMethod(t *testing.T) {
	for _, c := range []struct {
		status       int
		method, next string
		keepBody     bool
	}{
		{301, "GET", "GET", true},
		{301, "POST", "GET", false},
		{302, "POST", "GET", false},
		{302, "PUT", "PUT", true},
		{303, "POST", "GET", false},
		{303, "DELETE", "GET", false},
		{303, "HEAD", "HEAD", false},
		{307, "POST", "POST", true},
		{308, "PUT", "PUT", true},
	} {
		next, keep := RedirectMethod(c.status, c.method)
		if next != c.next || keep != c.keepBody {
			t.Errorf("%d %s → %s body %v, want %s body %v", c.status, c.method, next, keep, c.next, c.keepBody)
		}
	}
}

func TestRedirectWire(t *testing.T) {
	wire := "POST /login HTTP/1.1\r\nHost: 127.0.0.1:8080\r\nContent-Type: application/json\r\nAuthorization: Basic dTpw\r\nCookie: a=1\r\nX-Trace: 7\r\nContent-Length: 4\r\n\r\nbody"
	for _, c := range []struct {
		name, method, path, host string
		keepBody, cross          bool
		want                     string
	}{
		{"307 same origin", "POST", "/next", "", true, false,
			"POST /next HTTP/1.1\r\nHost: 127.0.0.1:8080\r\nContent-Type: application/json\r\nAuthorization: Basic dTpw\r\nCookie: a=1\r\nX-Trace: 7\r\nContent-Length: 4\r\n\r\nbody"},
		{"303 same origin", "GET", "/home", "", false, false,
			"GET /home HTTP/1.1\r\nHost: 127.0.0.1:8080\r\nAuthorization: Basic dTpw\r\nCookie: a=1\r\nX-Trace: 7\r\n\r\n"},
		{"303 cross origin", "GET", "/home", "127.0.0.2:9090", false, true,
			"GET /home HTTP/1.1\r\nHost: 127.0.0.2:9090\r\nX-Trace: 7\r\n\r\n"},
		{"307 cross origin", "POST", "/home", "127.0.0.2:9090", true, true,
			"POST /home HTTP/1.1\r\nHost: 127.0.0.2:9090\r\nContent-Type: application/json\r\nX-Trace: 7\r\nContent-Length: 4\r\n\r\nbody"},
	} {
		got := string(RedirectWire(nil, []byte(wire), c.method, []byte(c.path), c.host, c.keepBody, c.cross))
		if got != c.want {
			t.Errorf("%s:\n got %q\nwant %q", c.name, got, c.want)
		}
	}
}

// Whatever a server puts in Location, a hop stays on the plan's targets
// and its request-target is one a request line can carry.
func FuzzRedirectResolve(f *testing.F) {
	for _, s := range []string{"/a", "b/../c", "http://127.0.0.2:9090/x", "//x", "?q", "http://[::1]:80/", "https://api.example", "%zz", "http://a@b@127.0.0.1:8080"} {
		f.Add("/base/path?x", s)
	}
	o := testOrigins()
	f.Fuzz(func(t *testing.T, reqTarget, location string) {
		to, path, ok := o.Resolve(0, []byte(reqTarget), []byte(location), nil)
		if !ok {
			return
		}
		if to < 0 || to >= 3 {
			t.Fatalf("%q led to target %d", location, to)
		}
		if len(path) == 0 || path[0] != '/' || strings.ContainsAny(string(path), " \r\n\t#") {
			t.Fatalf("%q gave request-target %q", location, path)
		}
	})
}
