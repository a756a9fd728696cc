package plan

import (
	"encoding/base64"
	"strings"
	"testing"
	"testing/fstest"
)

// blob is a file go-cty's strings cannot hold: every byte value once.
var blob = func() []byte {
	b := make([]byte, 256)
	for i := range b {
		b[i] = byte(i)
	}
	return b
}()

// loadBodies loads a plan whose one endpoint has attrs, beside a binary
// file (blob.bin), a text file (note.txt) and a one-column CSV.
func loadBodies(t *testing.T, attrs string) (*Endpoint, string) {
	t.Helper()
	return loadEndpointWith(t, attrs, fstest.MapFS{
		"users.csv": {Data: []byte("name\nann lee\n")},
		"blob.bin":  {Data: blob},
		"note.txt":  {Data: []byte("hello\n")},
	})
}

func contentType(e *Endpoint) string {
	if h := findHeader(e.Headers, "Content-Type"); h != nil {
		return h.Value.Literal()
	}
	return ""
}

func TestBodies(t *testing.T) {
	const bnd = "BOUNDARY"
	tests := []struct {
		name, attrs string
		body        string // with the multipart boundary written as BOUNDARY
		ctype       string
		method      string
	}{
		{name: "binary file as the body", attrs: `body = file("blob.bin")`, body: string(blob), method: "POST"},
		{name: "text file as the body", attrs: `body = file("note.txt")`, body: "hello\n", method: "POST"},
		{name: "base64 of a binary file", attrs: `body = jsonencode({ img = base64encode(file("blob.bin")) })`,
			body: `{"img":"` + base64.StdEncoding.EncodeToString(blob) + `"}`, method: "POST"},
		{name: "form in name order, escaped", attrs: `
  method = "PUT"
  form   = { user = row.name, "a b" = "x&y=z", n = "${seq}" }`,
			body: "a+b=x%26y%3Dz&n={seq:url}&user={row:name:url}", ctype: formContentType, method: "PUT"},
		{name: "form keeps a Content-Type the request sets", attrs: `
  headers = { "content-type" = "application/x-www-form-urlencoded; charset=utf-8" }
  form    = { q = "é" }`,
			body: "q=%C3%A9", ctype: "application/x-www-form-urlencoded; charset=utf-8", method: "POST"},
		{name: "multipart fields and files in written order", attrs: `
  multipart {
    field "title" { value = "cat ${row.name}" }
    file "photo" {
      path         = "blob.bin"
      content_type = "image/png"
    }
    field "quote\"d" { value = "two\r\nlines" }
    file "notes" {
      path     = "note.txt"
      filename = "my notes.txt"
    }
  }`,
			body: "--" + bnd + "\r\nContent-Disposition: form-data; name=\"title\"\r\n\r\ncat {row:name}\r\n" +
				"--" + bnd + "\r\nContent-Disposition: form-data; name=\"photo\"; filename=\"blob.bin\"\r\nContent-Type: image/png\r\n\r\n" + string(blob) + "\r\n" +
				"--" + bnd + "\r\nContent-Disposition: form-data; name=\"quote%22d\"\r\n\r\ntwo\r\nlines\r\n" +
				"--" + bnd + "\r\nContent-Disposition: form-data; name=\"notes\"; filename=\"my notes.txt\"\r\nContent-Type: application/octet-stream\r\n\r\nhello\n\r\n" +
				"--" + bnd + "--\r\n",
			ctype: "multipart/form-data; boundary=" + bnd, method: "POST"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e, errs := loadBodies(t, tt.attrs)
			if errs != "" {
				t.Fatal(errs)
			}
			body, ctype := render(e.Body), contentType(e)
			if b, ok := strings.CutPrefix(ctype, "multipart/form-data; boundary="); ok {
				if !strings.HasPrefix(b, "tressi-") || len(b) != len("tressi-")+24 {
					t.Errorf("boundary %q is not tressi- and 24 hex digits", b)
				}
				body, ctype = strings.ReplaceAll(body, b, bnd), strings.ReplaceAll(ctype, b, bnd)
			}
			if body != tt.body {
				t.Errorf("body:\n got %q\nwant %q", body, tt.body)
			}
			if ctype != tt.ctype {
				t.Errorf("Content-Type %q, want %q", ctype, tt.ctype)
			}
			if e.Method != tt.method {
				t.Errorf("method %s, want %s", e.Method, tt.method)
			}
		})
	}
}

// The boundary is derived from the parts, so the same plan sends the same
// bytes on every load, and another file gives another boundary.
func TestMultipartBoundaryIsReproducible(t *testing.T) {
	load := func(path string) string {
		e, errs := loadBodies(t, `multipart {
  file "f" { path = "`+path+`" }
}`)
		if errs != "" {
			t.Fatal(errs)
		}
		return contentType(e)
	}
	a, b := load("blob.bin"), load("blob.bin")
	if a != b {
		t.Errorf("two loads of one plan: %q then %q", a, b)
	}
	if c := load("note.txt"); c == a {
		t.Errorf("another file kept the boundary %q", c)
	}
}

func TestBodyErrors(t *testing.T) {
	tests := []struct{ attrs, want string }{
		{`body = "x"
  form = { a = "b" }`, "Conflicting bodies"},
		{`form = { a = "b" }
  multipart {
    field "a" { value = "b" }
  }`, "Conflicting bodies"},
		{`headers = { "Content-Type" = "text/plain" }
  multipart {
    field "a" { value = "b" }
  }`, "Conflicting Content-Type"},
		{`multipart {}`, "Empty multipart"},
		{`multipart {
    file "f" { path = "missing.bin" }
  }`, "Cannot read multipart file"},
		{`form = { q = urlencode(row.name) }`, "cannot be URL-encoded twice"},
		{`form = ["a"]`, "Invalid form"},
		{`body = jsonencode({ raw = file("blob.bin") })`, "cannot go into JSON"},
		{`body = upper(file("blob.bin"))`, "binary file"},
		{`multipart {
    file "f" {
      path         = "blob.bin"
      content_type = "a\nb"
    }
  }`, "Invalid content_type"},
	}
	for _, tt := range tests {
		_, errs := loadBodies(t, tt.attrs)
		if !strings.Contains(errs, tt.want) {
			t.Errorf("%s\n got %q\nwant %q", tt.attrs, errs, tt.want)
		}
	}
}
