package compile

import (
	"bytes"
	"mime"
	"mime/multipart"
	"strings"
	"testing"
	"testing/fstest"
)

// A multipart body with per-request parts and a binary file compiles to one
// fixed-shape splice: filling it per request allocates nothing once the
// buffer has room, and what it renders parses as the multipart body the
// plan describes, the file's bytes intact. The form beside it likewise.
func TestTemplatedBodiesFillWithoutAllocating(t *testing.T) {
	png := []byte("\x89PNG\r\n\x1a\n\x00\xff--not-a-boundary")
	s := compileFS(t, fstest.MapFS{
		"p.hcl": {Data: []byte(`
target "api" { url = "http://127.0.0.1:1" }
data "users" { csv = "users.csv" }
endpoint "upload" {
  path = "/upload"
  multipart {
    field "user" { value = row.name }
    field "n" { value = "#${seq}" }
    file "photo" {
      path         = "cat.png"
      content_type = "image/png"
    }
  }
}
endpoint "form" {
  path = "/search"
  form = { q = row.name, page = "${seq}" }
}
load {
  stage {
    duration = "1s"
    rate     = 2
  }
}`)},
		"users.csv": {Data: []byte("name\nann lee&co\n")},
		"cat.png":   {Data: png},
	})
	v := Values{Slot: 41, Row: []string{"ann lee&co"}}
	buf := make([]byte, 0, 4096)
	for _, r := range s.Requests {
		if r.Body.Static() {
			t.Fatalf("%s: the body has no holes", r.Name)
		}
		if n := testing.AllocsPerRun(100, func() { buf = r.Body.Append(buf[:0], &v) }); n != 0 {
			t.Errorf("%s: %v allocs per fill", r.Name, n)
		}
		var ctype string
		for _, h := range r.Headers {
			if strings.EqualFold(h.Name, "Content-Type") {
				ctype = string(h.Value.Segments[0])
			}
		}
		body := r.Body.Append(nil, &v)
		if r.Name == "form" {
			if string(body) != "page=41&q=ann+lee%26co" || ctype != "application/x-www-form-urlencoded" {
				t.Errorf("form: %q, %s", body, ctype)
			}
			continue
		}
		_, params, err := mime.ParseMediaType(ctype)
		if err != nil {
			t.Fatal(err)
		}
		mr := multipart.NewReader(bytes.NewReader(body), params["boundary"])
		var got []string
		for {
			p, err := mr.NextPart()
			if err != nil {
				break
			}
			var b bytes.Buffer
			_, _ = b.ReadFrom(p)
			got = append(got, p.FormName()+"="+b.String())
		}
		if want := []string{"user=ann lee&co", "n=#41", "photo=" + string(png)}; strings.Join(got, "|") != strings.Join(want, "|") {
			t.Errorf("multipart parts %q, want %q", got, want)
		}
	}
}
