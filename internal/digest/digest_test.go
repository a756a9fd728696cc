package digest

import (
	"strings"
	"testing"
)

// RFC 7616 §3.9.1: the worked example, once per algorithm.
const (
	rfcUser   = "Mufasa"
	rfcPass   = "Circle of Life"
	rfcRealm  = "http-auth@example.org"
	rfcNonce  = "7ypf/xlj9XXwfDPEoM4URrv/xwf94BcCAzFZH4GiTo0v"
	rfcOpaque = "FQhe/qaU925kfnzjCev0ciny7QMkPqMAFRtzCUYo5tdS"
	rfcCNonce = "f2/wE4q74E6zIJEtWaHKaf5wv/H5QzzpXusqGemxURZJ"
	rfcURI    = "/dir/index.html"
)

func TestRFC7616Example(t *testing.T) {
	for _, c := range []struct {
		header string
		want   string
	}{
		{`Digest realm="http-auth@example.org", qop="auth, auth-int", algorithm=SHA-256, nonce="7ypf/xlj9XXwfDPEoM4URrv/xwf94BcCAzFZH4GiTo0v", opaque="FQhe/qaU925kfnzjCev0ciny7QMkPqMAFRtzCUYo5tdS"`,
			"753927fa0e85d155564e2e272a28d1802ca10daf4496794697cf8db5856cb6c1"},
		{`Digest realm="http-auth@example.org", qop="auth, auth-int", algorithm=MD5, nonce="7ypf/xlj9XXwfDPEoM4URrv/xwf94BcCAzFZH4GiTo0v", opaque="FQhe/qaU925kfnzjCev0ciny7QMkPqMAFRtzCUYo5tdS"`,
			"8ca523f5e9506fed4657c9700eebdbec"},
	} {
		ch, err := ParseChallenge(c.header)
		if err != nil {
			t.Fatal(err)
		}
		if ch.Realm != rfcRealm || ch.Nonce != rfcNonce || ch.Opaque != rfcOpaque || !ch.QOP {
			t.Fatalf("challenge %+v", ch)
		}
		if got := Response(ch.Algorithm, rfcUser, rfcRealm, rfcPass, "GET", rfcURI, rfcNonce, "00000001", rfcCNonce, "auth"); got != c.want {
			t.Errorf("%s: response %s, want %s", ch.Algorithm, got, c.want)
		}
		a := NewAnswerer(ch, rfcUser, rfcPass, rfcCNonce)
		value := string(a.Append(nil, []byte("GET"), []byte(rfcURI)))
		want := `Digest username="Mufasa", realm="http-auth@example.org", uri="/dir/index.html", algorithm=` + ch.Algorithm.String() +
			`, nonce="` + rfcNonce + `", nc=00000001, cnonce="` + rfcCNonce + `", qop=auth, response="` + c.want + `", opaque="` + rfcOpaque + `"`
		if value != want {
			t.Errorf("Authorization\n got %s\nwant %s", value, want)
		}
		// The server's side reads it back and accepts it; the next answer
		// counts nc up and is valid too; a wrong password is not.
		auth, err := ParseAuthorization(value)
		if err != nil || !auth.Valid(rfcPass, "GET") || auth.Valid("wrong", "GET") || auth.Valid(rfcPass, "POST") {
			t.Errorf("round trip: %+v, %v", auth, err)
		}
		next, _ := ParseAuthorization(string(a.Append(nil, []byte("GET"), []byte(rfcURI))))
		if next.NC != "00000002" || !next.Valid(rfcPass, "GET") {
			t.Errorf("second answer %+v", next)
		}
	}
}

// Every algorithm and the qop-less form (RFC 2069) round-trip through
// the server's check, with quoting in the user name.
func TestAnswersValidate(t *testing.T) {
	for _, alg := range []string{"MD5", "MD5-sess", "SHA-256", "SHA-256-sess"} {
		for _, qop := range []string{`, qop="auth"`, ""} {
			ch, err := ParseChallenge(`Digest realm="r", nonce="n1", algorithm=` + alg + qop)
			if strings.HasSuffix(alg, "-sess") && qop == "" {
				if err != ErrUnsupported {
					t.Errorf("%s without qop: %v, want ErrUnsupported", alg, err)
				}
				continue
			}
			if err != nil {
				t.Fatal(err)
			}
			a := NewAnswerer(ch, `we"ird\user`, "pw", "cn")
			auth, err := ParseAuthorization(string(a.Append(nil, []byte("POST"), []byte("/a?b=c"))))
			if err != nil || auth.Username != `we"ird\user` || auth.URI != "/a?b=c" || !auth.Valid("pw", "POST") || auth.Algorithm.String() != alg {
				t.Errorf("%s%s: %+v %v", alg, qop, auth, err)
			}
			if (auth.QOP == "") != (qop == "") {
				t.Errorf("%s%s: qop %q", alg, qop, auth.QOP)
			}
		}
	}
}

func TestParseChallenge(t *testing.T) {
	for _, c := range []struct {
		header string
		want   Challenge
		err    error
	}{
		{`Basic realm="x", Digest realm="y", nonce="abc", qop=auth`, Challenge{Realm: "y", Nonce: "abc", QOP: true, Algorithm: MD5}, nil},
		{`Digest realm="a\"b", nonce=tok/68==, stale=TRUE`, Challenge{Realm: `a"b`, Nonce: "tok/68==", Stale: true, Algorithm: MD5}, nil},
		// Several Digest challenges: the first supported one wins.
		{`Digest realm="r", nonce="1", algorithm=SHA-512-256, Digest realm="r", nonce="2", algorithm=SHA-256, qop="auth"`, Challenge{Realm: "r", Nonce: "2", Algorithm: SHA256, QOP: true}, nil},
		{`Basic realm="x"`, Challenge{}, ErrNoDigest},
		{`Digest realm="r", nonce="n", qop="auth-int"`, Challenge{}, ErrUnsupported},
		{`Digest realm="r"`, Challenge{}, ErrMissingNonce},
		{`Digest realm="r, nonce=x`, Challenge{}, ErrMalformed},
		{`Digest realm=`, Challenge{}, ErrMalformed},
		{``, Challenge{}, ErrNoDigest},
	} {
		got, err := ParseChallenge(c.header)
		if err != c.err || got != c.want {
			t.Errorf("%s:\n got %+v, %v\nwant %+v, %v", c.header, got, err, c.want, c.err)
		}
	}
}

// An answer per request allocates nothing: the loop sends one per request
// of a session behind digest auth.
func TestAppendAllocatesNothing(t *testing.T) {
	ch, _ := ParseChallenge(`Digest realm="r", nonce="abcdef", qop="auth", algorithm=SHA-256, opaque="o"`)
	a := NewAnswerer(ch, "user", "pass", "cnonce")
	buf := make([]byte, 0, 512)
	method, uri := []byte("GET"), []byte("/some/path?with=query")
	if n := testing.AllocsPerRun(100, func() { buf = a.Append(buf[:0], method, uri) }); n != 0 {
		t.Errorf("Append allocates %.1f times per call", n)
	}
	if !strings.Contains(string(buf), `response="`) {
		t.Errorf("no response in %s", buf)
	}
}

func BenchmarkAppendSHA256(b *testing.B) {
	ch, _ := ParseChallenge(`Digest realm="r", nonce="abcdef", qop="auth", algorithm=SHA-256`)
	a := NewAnswerer(ch, "user", "pass", "cnonce")
	buf := make([]byte, 0, 512)
	method, uri := []byte("GET"), []byte("/some/path")
	b.ReportAllocs()
	for b.Loop() {
		buf = a.Append(buf[:0], method, uri)
	}
}
