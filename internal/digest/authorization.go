package digest

import "strings"

// Authorization is a client's Digest answer as a server reads it.
type Authorization struct {
	Username, Realm, URI, Nonce, NC, CNonce, QOP, Response, Opaque string
	Algorithm                                                      Algorithm
}

// ParseAuthorization reads an Authorization header's Digest credentials.
func ParseAuthorization(header string) (Authorization, error) {
	p := parser{s: header}
	scheme, ok := p.token()
	if !ok || !strings.EqualFold(scheme, "digest") {
		return Authorization{}, ErrNoDigest
	}
	params, err := p.params()
	if err != nil {
		return Authorization{}, err
	}
	a := Authorization{Algorithm: MD5}
	for _, kv := range params {
		v := kv[1]
		switch strings.ToLower(kv[0]) {
		case "username":
			a.Username = v
		case "realm":
			a.Realm = v
		case "uri":
			a.URI = v
		case "nonce":
			a.Nonce = v
		case "nc":
			a.NC = v
		case "cnonce":
			a.CNonce = v
		case "qop":
			a.QOP = v
		case "response":
			a.Response = v
		case "opaque":
			a.Opaque = v
		case "algorithm":
			if a.Algorithm = algorithmOf(v); a.Algorithm == 0 {
				return Authorization{}, ErrUnsupported
			}
		}
	}
	if a.Username == "" || a.Nonce == "" || a.Response == "" {
		return Authorization{}, ErrMalformed
	}
	return a, nil
}

// Valid says whether a's response is the one password gives for method,
// checked against a's own uri, nonce, nc and cnonce: the server compares
// the uri with the request's target and the nonce with those it issued.
func (a Authorization) Valid(password, method string) bool {
	return Response(a.Algorithm, a.Username, a.Realm, password, method, a.URI, a.Nonce, a.NC, a.CNonce, a.QOP) == a.Response
}
