package cookiejar

import (
	"testing"
)

const now = 1_700_000_000

type set struct {
	header, host, path string
	secure             bool
}

// Each case stores the Set-Cookie values in order and reads the Cookie
// header requests would send.
func TestJarRules(t *testing.T) {
	for _, c := range []struct {
		name string
		sets []set
		// requests: "host path secure" → the Cookie header
		want map[[3]string]string
	}{
		{"host-only: not to subdomains, default path of /login is /",
			[]set{{"sid=1", "api.example", "/login", false}},
			map[[3]string]string{{"api.example", "/me"}: "sid=1", {"www.api.example", "/"}: "", {"API.example", "/"}: ""}},
		{"Domain: the domain and its subdomains, not a sibling",
			[]set{{"sid=1; Domain=.Example.com", "api.example.com", "/", false}},
			map[[3]string]string{{"example.com", "/"}: "sid=1", {"www.example.com", "/"}: "sid=1", {"example.org", "/"}: "", {"badexample.com", "/"}: ""}},
		{"a Domain the host is not in, or a dotless one, is refused",
			[]set{{"a=1; Domain=other.com", "api.example.com", "/", false}, {"b=2; Domain=com", "api.example.com", "/", false}},
			map[[3]string]string{{"api.example.com", "/"}: "", {"other.com", "/"}: ""}},
		{"an IP host takes host-only cookies only",
			[]set{{"a=1", "127.0.0.1", "/", false}, {"b=2; Domain=0.0.1", "127.0.0.1", "/", false}},
			map[[3]string]string{{"127.0.0.1", "/"}: "a=1"}},
		{"default path is the request path's directory; path-match at a /",
			[]set{{"a=1", "h", "/shop/cart/add", false}},
			map[[3]string]string{{"h", "/shop/cart"}: "a=1", {"h", "/shop/cart/x"}: "a=1", {"h", "/shop/cartography"}: "", {"h", "/shop"}: ""}},
		{"longer paths first, then older first",
			[]set{{"b=root", "h", "/", false}, {"a=deep; Path=/a/b", "h", "/", false}, {"c=root2", "h", "/", false}},
			map[[3]string]string{{"h", "/a/b/c"}: "a=deep; b=root; c=root2", {"h", "/a"}: "b=root; c=root2"}},
		{"a new value replaces, keeping the old one's place",
			[]set{{"a=1", "h", "/", false}, {"b=2", "h", "/", false}, {"a=3", "h", "/", false}},
			map[[3]string]string{{"h", "/"}: "a=3; b=2"}},
		{"Max-Age=0 and a past Expires delete; Max-Age wins over Expires",
			[]set{{"a=1", "h", "/", false}, {"b=2", "h", "/", false}, {"c=3; Expires=Wed, 21 Oct 2015 07:28:00 GMT; Max-Age=100", "h", "/", false},
				{"a=; Max-Age=0", "h", "/", false}, {"b=x; Expires=Thu, 01 Jan 1970 00:00:01 GMT", "h", "/", false}},
			map[[3]string]string{{"h", "/"}: "c=3"}},
		{"Secure: sent over https only, wherever it was set",
			[]set{{"s=1; Secure", "h", "/", false}, {"t=2; Secure", "h", "/", true}, {"u=3", "h", "/", false}},
			map[[3]string]string{{"h", "/", "https"}: "s=1; t=2; u=3", {"h", "/"}: "u=3"}},
		{"HttpOnly and SameSite are kept and ignored",
			[]set{{"a=1; HttpOnly; SameSite=Strict", "h", "/", false}},
			map[[3]string]string{{"h", "/"}: "a=1"}},
		{"no '=', an empty name or a control character is ignored",
			[]set{{"novalue", "h", "/", false}, {"=x", "h", "/", false}, {"a=b\x01", "h", "/", false}, {"ok=\"quoted\"", "h", "/", false}},
			map[[3]string]string{{"h", "/"}: `ok="quoted"`}},
	} {
		t.Run(c.name, func(t *testing.T) {
			var j Jar
			for _, s := range c.sets {
				j.SetCookie(s.header, s.host, s.path, s.secure, now)
			}
			for req, want := range c.want {
				got, ok := j.AppendHeader(nil, req[0], []byte(req[1]), req[2] == "https", now)
				if string(got) != want || ok != (want != "") {
					t.Errorf("%v: Cookie %q (%v), want %q", req, got, ok, want)
				}
			}
		})
	}
}

// Cookies expire as the clock passes their date, and the jar drops them.
func TestJarExpiry(t *testing.T) {
	var j Jar
	j.SetCookie("a=1; Max-Age=10", "h", "/", false, now)
	j.SetCookie("b=2", "h", "/", false, now)
	if got, _ := j.AppendHeader(nil, "h", []byte("/"), false, now+9); string(got) != "a=1; b=2" {
		t.Fatalf("before expiry: %q", got)
	}
	if got, _ := j.AppendHeader(nil, "h", []byte("/"), false, now+10); string(got) != "b=2" || j.Len() != 1 {
		t.Fatalf("after expiry: %q, %d cookies", got, j.Len())
	}
	if v, ok := j.Get("b", "h", "/x", false, now); v != "2" || !ok {
		t.Errorf("Get b = %q %v", v, ok)
	}
	j.Reset()
	if j.Len() != 0 {
		t.Errorf("Reset left %d", j.Len())
	}
}

// A jar holds at most MaxCookies: the oldest goes first.
func TestJarBound(t *testing.T) {
	var j Jar
	for i := range MaxCookies + 5 {
		j.SetCookie("c"+string(rune('A'+i%26))+string(rune('a'+i/26))+"=v", "h", "/", false, now)
	}
	if j.Len() != MaxCookies {
		t.Fatalf("%d cookies, want %d", j.Len(), MaxCookies)
	}
	if _, ok := j.Get("cAa", "h", "/", false, now); ok {
		t.Error("the oldest cookie was kept")
	}
}

// The loop writes the Cookie header of every request: with no cookie it
// costs nothing, and with cookies it appends without allocating.
func TestAppendHeaderAllocatesNothing(t *testing.T) {
	var empty, full Jar
	full.SetCookie("sid=0123456789abcdef; Path=/; HttpOnly", "api.example", "/login", true, now)
	full.SetCookie("pref=dark", "api.example", "/login", true, now)
	buf := make([]byte, 0, 256)
	path := []byte("/me")
	for name, j := range map[string]*Jar{"empty": &empty, "two cookies": &full} {
		if n := testing.AllocsPerRun(100, func() { buf, _ = j.AppendHeader(buf[:0], "api.example", path, true, now) }); n != 0 {
			t.Errorf("%s: %.1f allocations per request", name, n)
		}
	}
}

func TestPathOf(t *testing.T) {
	for in, want := range map[string]string{"/a/b?x=1": "/a/b", "/": "/", "/p#f": "/p", "": ""} {
		if got := string(PathOf([]byte(in))); got != want {
			t.Errorf("PathOf(%q) = %q, want %q", in, got, want)
		}
	}
}
