package exec

import (
	"testing"

	"github.com/valyala/fasthttp"

	"github.com/tressi/tressi/compile"
	"github.com/tressi/tressi/plan"
)

func TestCapture(t *testing.T) {
	var resp fasthttp.Response
	resp.Header.Set("X-Token", "h-123")
	resp.SetBodyString(`{"data":{"token":"abc","n":4.50,"ok":true,"none":null,"empty":"","items":[{"id":7},{"id":"x"}]},"html":"<a href=\"/s?token=zz9\">"}`)
	for _, tc := range []struct {
		kind plan.CaptureKind
		expr string
		want string // "" means missing
	}{
		{plan.CaptureJSON, "data.token", "abc"},
		{plan.CaptureJSON, "$.data.token", "abc"},
		{plan.CaptureJSON, "data.n", "4.50"},
		{plan.CaptureJSON, "data.ok", "true"},
		{plan.CaptureJSON, "data.items[1].id", "x"},
		{plan.CaptureJSON, "data.items[0]", `{"id":7}`},
		{plan.CaptureJSON, "data.items[2].id", ""},
		{plan.CaptureJSON, "data.none", ""},
		{plan.CaptureJSON, "data.empty", ""},
		{plan.CaptureJSON, "data.missing", ""},
		{plan.CaptureJSON, "data.token.deeper", ""},
		{plan.CaptureHeader, "x-token", "h-123"},
		{plan.CaptureHeader, "X-Missing", ""},
		{plan.CaptureRegex, `token=(\w+)`, "zz9"},
		{plan.CaptureRegex, `token=\w+`, "token=zz9"},
		{plan.CaptureRegex, `nomatch=(\w+)`, ""},
	} {
		c, err := newCapturer(compile.Capture{Name: "v", Kind: tc.kind, Expr: tc.expr})
		if err != nil {
			t.Fatalf("%s: %v", tc.expr, err)
		}
		got, ok := c.extract(nil, &resp)
		if ok != (tc.want != "") || string(got) != tc.want {
			t.Errorf("%v %q = %q, %v; want %q", tc.kind, tc.expr, got, ok, tc.want)
		}
	}
	// Not JSON at all: missing, not a crash.
	resp.SetBodyString("<html>")
	c, _ := newCapturer(compile.Capture{Kind: plan.CaptureJSON, Expr: "a"})
	if _, ok := c.extract(nil, &resp); ok {
		t.Error("captured from a body that is not JSON")
	}
	for _, bad := range []string{"", "a..b", "a.", "a[x]", "a[1", "[-1]"} {
		if _, err := parseJSONPath(bad); err == nil {
			t.Errorf("json path %q accepted", bad)
		}
	}
}
