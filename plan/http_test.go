package plan

import (
	"reflect"
	"testing"
)

// resolve, basic_auth, digest_auth, redirects, cookies and cookie() captures read
// alike from HCL and JSON, and decode to what they say.
func TestHTTPFeaturesBothSyntaxes(t *testing.T) {
	native := mustLoad(t, Options{Path: "testdata/equiv_http/http.hcl"})
	json := mustLoad(t, Options{Path: "testdata/equiv_http/http.hcl.json"})
	for _, p := range []*Plan{native, json} {
		p.Sources, p.Path, p.Name = nil, "", ""
		clearRanges(reflect.ValueOf(p))
	}
	if !reflect.DeepEqual(native, json) {
		t.Fatalf("plans differ:\nnative %#v\njson   %#v", native, json)
	}
	api := native.Targets[0]
	if api.Resolve["api.example"] != "127.0.0.1" || len(api.Headers) != 1 ||
		api.Headers[0].Value.Literal() != "Basic YWxpY2U6cHctZnJvbS1kZWZhdWx0" {
		t.Errorf("target %+v", api)
	}
	if e := native.Endpoints[0]; e.Cookies != CookiesShared || e.DigestAuth == nil || *e.DigestAuth != (Credentials{"bob", "pw-from-default"}) {
		t.Errorf("endpoint cookies %q digest %+v", e.Cookies, e.DigestAuth)
	}
	if api.Redirects != 5 || native.Endpoints[0].Redirects != 0 || native.Scenarios[1].Steps[0].Redirects != 2 || native.Scenarios[0].Steps[0].Redirects != RedirectsUnset {
		t.Errorf("redirects: target %d, endpoint %d, steps %d and %d", api.Redirects, native.Endpoints[0].Redirects, native.Scenarios[1].Steps[0].Redirects, native.Scenarios[0].Steps[0].Redirects)
	}
	if native.Scenarios[0].Cookies != CookiesOff || native.Scenarios[1].Cookies != "" {
		t.Errorf("scenario cookies %q, %q", native.Scenarios[0].Cookies, native.Scenarios[1].Cookies)
	}
	if c := native.Scenarios[1].Steps[0].Captures[0]; c.Kind != CaptureCookie || c.Expr != "sid" {
		t.Errorf("capture %+v", c)
	}
	for _, secret := range []string{"pw-from-default", "YWxpY2U6cHctZnJvbS1kZWZhdWx0"} {
		if native.Secrets.String("x"+secret) != "x"+Redacted {
			t.Errorf("%q is not a secret", secret)
		}
	}
}
