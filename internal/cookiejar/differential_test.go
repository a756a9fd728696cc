package cookiejar

import (
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"strings"
	"testing"
	"time"

	"pgregory.net/rapid"
)

// On the cookies both understand, the jar sends what Go's net/http/cookiejar
// (RFC 6265, no public suffix list) sends, for random sequences of
// Set-Cookie headers and requests over hosts, paths, domains, expiry and
// Secure.
func TestJarAgreesWithNetHTTP(t *testing.T) {
	hosts := []string{"example.com", "api.example.com", "www.api.example.com", "other.org"}
	paths := []string{"/", "/a", "/a/", "/a/b", "/a/bc", "/b/c/d"}
	attrs := []string{"", "; Path=/", "; Path=/a", "; Path=/a/b", "; Domain=example.com", "; Domain=.api.example.com",
		"; Domain=other.org", "; Max-Age=0", "; Max-Age=100", "; Secure", "; HttpOnly", "; SameSite=Lax"}
	rapid.Check(t, func(t *rapid.T) {
		ours := &Jar{}
		theirs, _ := cookiejar.New(nil)
		now := time.Now().Unix()
		for i := range rapid.IntRange(1, 30).Draw(t, "steps") {
			host := rapid.SampledFrom(hosts).Draw(t, "host")
			path := rapid.SampledFrom(paths).Draw(t, "path")
			secure := rapid.Bool().Draw(t, "secure")
			scheme := "http"
			if secure {
				scheme = "https"
			}
			u := &url.URL{Scheme: scheme, Host: host, Path: path}
			if rapid.Bool().Draw(t, "set") {
				h := rapid.SampledFrom([]string{"a", "b", "c"}).Draw(t, "name") + "=" + rapid.StringMatching(`[x-z0-9]{0,3}`).Draw(t, "value")
				for range rapid.IntRange(0, 3).Draw(t, "attrs") {
					h += rapid.SampledFrom(attrs).Draw(t, "attr")
				}
				ours.SetCookie(h, host, path, secure, now)
				theirs.SetCookies(u, (&http.Response{Header: http.Header{"Set-Cookie": {h}}}).Cookies())
				continue
			}
			got, _ := ours.AppendHeader(nil, host, []byte(path), secure, now)
			req := &http.Request{Header: http.Header{}}
			for _, c := range theirs.Cookies(u) {
				req.AddCookie(c)
			}
			if want := req.Header.Get("Cookie"); string(got) != want {
				t.Fatalf("step %d, %s: Cookie %q, net/http's jar %q", i, u, got, want)
			}
		}
	})
}

// Headers from the wild do not crash the parser, and what the jar stores
// can never split the request it is sent in.
func FuzzSetCookie(f *testing.F) {
	for _, s := range []string{"sid=1; Path=/; HttpOnly", "a=b; Domain=.example.com; Max-Age=10; Secure",
		"x=y; Expires=Wed, 21 Oct 2015 07:28:00 GMT", "=;;;", "a=\"q\"; Path=rel"} {
		f.Add(s, "/login")
	}
	f.Fuzz(func(t *testing.T, header, path string) {
		var j Jar
		j.SetCookie(header, "api.example.com", path, true, now)
		got, _ := j.AppendHeader(nil, "api.example.com", []byte(path), true, now)
		if strings.ContainsAny(string(got), "\r\n") {
			t.Fatalf("Cookie header %q holds a line break", got)
		}
	})
}
