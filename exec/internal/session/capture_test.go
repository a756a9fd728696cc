package session

import (
	"testing"

	"github.com/valyala/fasthttp"

	"github.com/tressi/tressi/compile"
)

func TestCapture(t *testing.T) {
	var resp fasthttp.Response
	resp.Header.Set("X-Token", "h-123")
	resp.SetBodyString(`{"data":{"token":"abc","n":4.50,"ok":true,"none":null,"empty":"","items":[{"id":7},{"id":"x"}]},"html":"<a href=\"/s?token=zz9\">"}`)
	for _, tc := range []struct {
		kind compile.CaptureKind
		expr string
		want string // "" means missing
	}{
		{compile.CaptureJSON, "data.token", "abc"},
		{compile.CaptureJSON, "$.data.token", "abc"},
		{compile.CaptureJSON, "data.n", "4.50"},
		{compile.CaptureJSON, "data.ok", "true"},
		{compile.CaptureJSON, "data.items[1].id", "x"},
		{compile.CaptureJSON, "data.items[0]", `{"id":7}`},
		{compile.CaptureJSON, "data.items[2].id", ""},
		{compile.CaptureJSON, "data.none", ""},
		{compile.CaptureJSON, "data.empty", ""},
		{compile.CaptureJSON, "data.missing", ""},
		{compile.CaptureJSON, "data.token.deeper", ""},
		{compile.CaptureHeader, "x-token", "h-123"},
		{compile.CaptureHeader, "X-Missing", ""},
		{compile.CaptureRegex, `token=(\w+)`, "zz9"},
		{compile.CaptureRegex, `token=\w+`, "token=zz9"},
		{compile.CaptureRegex, `nomatch=(\w+)`, ""},
	} {
		c, err := NewCapturer(compile.Capture{Name: "v", Kind: tc.kind, Expr: tc.expr})
		if err != nil {
			t.Fatalf("%s: %v", tc.expr, err)
		}
		// Both engines' responses: fasthttp's, and the loop's raw head
		// and body prefix.
		raw := &RawResponse{Head: []byte("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nx-TOKEN:  h-123 \r\n\r\n"), Body: resp.Body()}
		for _, src := range []CaptureSource{&FastResponse{R: &resp}, raw} {
			got, ok := c.Extract(nil, src)
			if ok != (tc.want != "") || string(got) != tc.want {
				t.Errorf("%T: %v %q = %q, %v; want %q", src, tc.kind, tc.expr, got, ok, tc.want)
			}
		}
	}
	// Not JSON at all: missing, not a crash.
	resp.SetBodyString("<html>")
	c, _ := NewCapturer(compile.Capture{Kind: compile.CaptureJSON, Expr: "a"})
	if _, ok := c.Extract(nil, &FastResponse{R: &resp}); ok {
		t.Error("captured from a body that is not JSON")
	}
	for _, bad := range []string{"", "a..b", "a.", "a[x]", "a[1", "[-1]"} {
		if _, err := ParseJSONPath(bad); err == nil {
			t.Errorf("json path %q accepted", bad)
		}
	}
}
