package testserver

import (
	"io"
	"net/http"
	"net/http/cookiejar"
	"strings"
	"testing"

	"github.com/tressi/tressi/internal/digest"
)

// Each client logs in, gets its own session cookie, and its /cookie/me
// requests are counted against it; a request without one is refused.
func TestCookieSessions(t *testing.T) {
	s, base := start(t)
	for range 3 {
		jar, _ := cookiejar.New(nil)
		c := &http.Client{Jar: jar}
		get(t, c, base+"/cookie/login", http.StatusOK)
		for range 2 {
			get(t, c, base+"/cookie/me", http.StatusOK)
		}
	}
	get(t, http.DefaultClient, base+"/cookie/me", http.StatusUnauthorized)
	jar, _ := cookiejar.New(nil)
	c := &http.Client{Jar: jar}
	get(t, c, base+"/cookie/login", http.StatusOK)
	get(t, c, base+"/cookie/logout", http.StatusOK) // deletes the cookie
	get(t, c, base+"/cookie/me", http.StatusUnauthorized)
	want := CookieStats{Logins: 4, Sessions: 3, Requests: 6, Rejected: 2, MinUses: 2, MaxUses: 2}
	if got := s.Stats().Cookies; got != want {
		t.Errorf("cookie stats %+v, want %+v", got, want)
	}
	s.ResetStats()
	if got := s.Stats().Cookies; got != (CookieStats{}) {
		t.Errorf("after ResetStats: %+v", got)
	}
}

// /redirect/N takes N hops to "ok", with the status asked for, the query
// kept, and the last hop going where ?to= says.
func TestRedirectChain(t *testing.T) {
	_, base := start(t)
	var hops []string
	c := &http.Client{CheckRedirect: func(req *http.Request, _ []*http.Request) error {
		hops = append(hops, req.Method+" "+req.URL.RequestURI()+" "+req.Response.Status[:3])
		return nil
	}}
	resp, err := c.Post(base+"/redirect/3?code=303&to=/echo", "text/plain", strings.NewReader("x"))
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	want := []string{"GET /redirect/2?code=303&to=/echo 303", "GET /redirect/1?code=303&to=/echo 303", "GET /echo 303"}
	if strings.Join(hops, "\n") != strings.Join(want, "\n") || !strings.Contains(string(body), `"method":"GET"`) {
		t.Errorf("hops:\n%s\nbody %s", strings.Join(hops, "\n"), body)
	}
	noFollow := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err = noFollow.Get(base + "/redirect/1?code=308")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusPermanentRedirect || resp.Header.Get("Location") != "/redirect/0?code=308" {
		t.Errorf("308: %d Location %q", resp.StatusCode, resp.Header.Get("Location"))
	}
	if code, _, _ := do(t, "GET", base+"/redirect/1?code=200", "", ""); code != http.StatusBadRequest {
		t.Errorf("code=200: %d, want 400", code)
	}
}

func TestBasicAuthRoute(t *testing.T) {
	_, base := start(t)
	code, h, _ := do(t, "GET", base+"/basic-auth/alice/pw", "", "")
	if code != http.StatusUnauthorized || !strings.HasPrefix(h.Get("WWW-Authenticate"), "Basic ") {
		t.Fatalf("no credentials: %d %q", code, h.Get("WWW-Authenticate"))
	}
	req, _ := http.NewRequest("GET", base+"/basic-auth/alice/pw", nil)
	req.SetBasicAuth("alice", "pw")
	if resp := send(t, req); resp != http.StatusOK {
		t.Errorf("good credentials: %d", resp)
	}
	req.SetBasicAuth("alice", "nope")
	if resp := send(t, req); resp != http.StatusUnauthorized {
		t.Errorf("bad credentials: %d", resp)
	}
}

// A digest challenge answered by the client's side of internal/digest is
// accepted, for both algorithms; a wrong password or another URI is not.
func TestDigestAuthRoute(t *testing.T) {
	_, base := start(t)
	for _, alg := range []string{"MD5", "SHA-256"} {
		path := "/digest-auth/auth/bob/s3cret/" + alg
		code, h, _ := do(t, "GET", base+path, "", "")
		ch, err := digest.ParseChallenge(h.Get("WWW-Authenticate"))
		if code != http.StatusUnauthorized || err != nil || ch.Algorithm.String() != alg || !ch.QOP || ch.Realm != DigestRealm {
			t.Fatalf("%s challenge: %d %q %v", alg, code, h.Get("WWW-Authenticate"), err)
		}
		for _, c := range []struct {
			pass, uri string
			want      int
		}{{"s3cret", path, http.StatusOK}, {"wrong", path, http.StatusUnauthorized}, {"s3cret", "/other", http.StatusUnauthorized}} {
			a := digest.NewAnswerer(ch, "bob", c.pass, "cnonce1")
			code, _, _ := do(t, "GET", base+path, "", "", "Authorization", string(a.Append(nil, []byte("GET"), []byte(c.uri))))
			if code != c.want {
				t.Errorf("%s %s %s: %d, want %d", alg, c.pass, c.uri, code, c.want)
			}
		}
	}
}

func TestHostRoute(t *testing.T) {
	_, base := start(t)
	req, _ := http.NewRequest("GET", base+"/host", nil)
	req.Host = "shop.example"
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if string(body) != "shop.example\n" {
		t.Errorf("/host answered %q", body)
	}
}

func get(t *testing.T, c *http.Client, url string, want int) {
	t.Helper()
	resp, err := c.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != want {
		t.Fatalf("GET %s: %d, want %d", url, resp.StatusCode, want)
	}
}

func send(t *testing.T, req *http.Request) int {
	t.Helper()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode
}
