package digest

import "testing"

// The parsers read what servers and clients send: no input may crash
// them, and a challenge they accept answers into an Authorization the
// server's parser reads back and accepts.
func FuzzParseChallenge(f *testing.F) {
	for _, s := range []string{
		`Digest realm="http-auth@example.org", qop="auth, auth-int", algorithm=SHA-256, nonce="7ypf/xlj9XXwfDPEoM4URrv/xwf94BcCAzFZH4GiTo0v", opaque="FQhe"`,
		`Basic realm="x", Digest realm="y", nonce="abc"`,
		`Digest realm="a\"b", nonce=tok/68==, stale=true`,
		`Digest nonce=`, `"`, `Digest ,,, nonce="x"`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, header string) {
		c, err := ParseChallenge(header)
		if err != nil {
			return
		}
		a := NewAnswerer(c, "user", "pw", "cn")
		value := string(a.Append(nil, []byte("GET"), []byte("/x")))
		auth, err := ParseAuthorization(value)
		if err != nil || !auth.Valid("pw", "GET") || auth.Nonce != c.Nonce || auth.Realm != c.Realm {
			t.Fatalf("challenge %+v answered %s: %+v %v", c, value, auth, err)
		}
	})
}

func FuzzParseAuthorization(f *testing.F) {
	f.Add(`Digest username="Mufasa", realm="r", uri="/", algorithm=MD5, nonce="n", nc=00000001, cnonce="c", qop=auth, response="x"`)
	f.Add(`Digest username=`)
	f.Fuzz(func(t *testing.T, header string) {
		a, err := ParseAuthorization(header)
		if err == nil && (a.Username == "" || a.Nonce == "" || a.Response == "") {
			t.Fatalf("accepted without its required fields: %+v", a)
		}
	})
}
