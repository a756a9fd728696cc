package recording

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/tressi/tressi/plan"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test -update writes it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs (go test -update rewrites it):\n--- got\n%s", path, got)
	}
}

// validates loads src as tressi validate would, with files beside it.
func validates(t testing.TB, src []byte, files fstest.MapFS) {
	t.Helper()
	if files == nil {
		files = fstest.MapFS{}
	}
	files["imported.hcl"] = &fstest.MapFile{Data: src}
	if _, _, diags := plan.Load(plan.Options{Path: "imported.hcl", FS: files}); diags.HasErrors() {
		t.Fatalf("the written plan does not validate: %s\n%s", diags.Error(), src)
	}
}

func TestFirefoxHAR(t *testing.T) {
	f, err := os.Open("testdata/firefox.har")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rec, err := ParseHAR(f, "firefox.har")
	if err != nil {
		t.Fatal(err)
	}
	var shape []string
	for _, s := range rec.Sessions {
		shape = append(shape, s.Name+":"+string(rune('0'+len(s.Requests))))
	}
	// The ws:// entry sent no HTTP request of its own; the entry outside
	// any page is a scenario of its own.
	if got := strings.Join(shape, " "); got != "Shop — sign in:3 Shop — upload:2 requests:1" {
		t.Errorf("sessions %s", got)
	}
	src, err := Write(rec, Options{})
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "firefox.hcl", src)
	validates(t, src, nil)
	for _, secret := range []string{"k3y-ff-001", "ff-c00kie-42", "ff-pa55", "ff-t0ken-abc", "123456"} {
		if bytes.Contains(src, []byte(secret)) {
			t.Errorf("the plan holds the recorded secret %q", secret)
		}
	}
}

// A recording's redirect chains become one step each with redirects, the
// cookies its own answers set are left to the jar, and a recorded
// Authorization: Basic becomes basic_auth with sensitive variables.
func TestHARChainsCookiesAndBasic(t *testing.T) {
	f, err := os.Open("testdata/chain.har")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rec, err := ParseHAR(f, "chain.har")
	if err != nil {
		t.Fatal(err)
	}
	var steps []string
	for _, r := range rec.Sessions[0].Requests {
		steps = append(steps, fmt.Sprintf("%s %s ×%d %d", r.Method, r.URL.Path, r.Redirects, r.Status))
	}
	if got := strings.Join(steps, ", "); got != "POST /cookie/login ×1 200, GET /echo ×0 200, GET /redirect/2 ×2 200, GET /redirect/1 ×1 404" {
		t.Errorf("steps %s", got)
	}
	src, err := Write(rec, Options{})
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "chain.hcl", src)
	validates(t, src, nil)
	for _, secret := range []string{"har-c00kie", "har-pa55", "YW5uOmhhci1wYTU1"} {
		if bytes.Contains(src, []byte(secret)) {
			t.Errorf("the plan holds the recorded secret %q", secret)
		}
	}
}

func TestCurl(t *testing.T) {
	files := fstest.MapFS{"cat.png": {Data: []byte("\x89PNG\r\n")}, "body.json": {Data: []byte("{\"a\":\n1}\n")}}
	dir := t.TempDir()
	for name, f := range files {
		if err := os.WriteFile(filepath.Join(dir, name), f.Data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct{ name, cmd string }{
		{"get", `curl https://api.example/items?page=2 -H 'Accept: application/json' -sS`},
		{"chrome_copy_as_curl", `curl 'http://127.0.0.1:8080/login' \
  -H 'Accept: */*' \
  -H 'Content-Type: application/json' \
  -b 'sid=abc; theme=dark' \
  -H 'Origin: http://127.0.0.1:8080' \
  --data-raw $'{"user":"ann","password":"it\'s \u00e9"}'`},
		{"basic_auth_form", `curl -u ann:s3cret -d 'q=a b' -d token=xyz --data-urlencode 'msg=1&2' http://localhost:8080/search`},
		{"multipart", `curl -F title=cat -F 'photo=@cat.png;type=image/png' -F "doc=<body.json" http://127.0.0.1:8080/upload -k`},
		{"method_and_file", `curl -XPUT --data-binary @body.json -H "Content-Type: application/json" 127.0.0.1:8080/items/1`},
		{"get_with_data", `curl -G -d q=x --url http://127.0.0.1:8080/echo`},
		{"json_flag", `curl --json '{"k":"${v}"}' http://127.0.0.1:8080/echo -L --max-time 5`},
		{"digest_location", `curl --digest -u bob:pw --location --max-redirs 3 http://127.0.0.1:8080/digest-auth/auth/bob/pw`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec, err := ParseCurl(tt.cmd, dir)
			if err != nil {
				t.Fatal(err)
			}
			src, err := Write(rec, Options{Rate: 5, Duration: time.Second, PlanDir: dir})
			if err != nil {
				t.Fatal(err)
			}
			golden(t, "curl_"+tt.name+".hcl", src)
			validates(t, src, files)
		})
	}
}

func TestCurlErrors(t *testing.T) {
	tests := []struct{ cmd, want string }{
		{`wget http://x`, "not a curl command"},
		{`curl -H 'X: 1'`, "names no URL"},
		{`curl http://a http://b`, "two URLs"},
		{`curl --proxy http://p http://a`, "--proxy is not one an import understands"},
		{`curl 'http://a`, "never closed"},
		{`curl -d @missing.json http://a`, "cannot read the body file"},
		{`curl -F a=1 -d b=2 http://a`, "both -F and -d"},
		{`curl -H`, "needs a value"},
		{`curl ftp://a`, "not an http or https URL"},
		{`curl -b cookies.txt http://a`, "reads cookies from a file"},
		{`curl --digest http://a`, "add -u user:password"},
		{`curl -L --max-redirs x http://a`, "not a whole number"},
	}
	for _, tt := range tests {
		if _, err := ParseCurl(tt.cmd, t.TempDir()); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: error %v, want %q", tt.cmd, err, tt.want)
		}
	}
}

func TestShellWords(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{`a 'b c' "d \"e\" \$f" g\ h`, []string{"a", "b c", `d "e" $f`, "g h"}},
		{"a \\\n  b", []string{"a", "b"}},
		{`$'x\ny\'z\x41\u00e9\101'`, []string{"x\ny'zAéA"}},
		{`'a'"b"c`, []string{"abc"}},
		{`''`, []string{""}},
	}
	for _, tt := range tests {
		got, err := shellWords(tt.in)
		if err != nil || strings.Join(got, "|") != strings.Join(tt.want, "|") {
			t.Errorf("%q: %q, %v; want %q", tt.in, got, err, tt.want)
		}
	}
}

// Some HAR writers keep a form's fields in postData.params only: the body
// is built from them, in order.
func TestHARFormFromParams(t *testing.T) {
	rec, err := ParseHAR(strings.NewReader(`{"log":{"entries":[{"startedDateTime":"2026-01-01T00:00:00Z",
"request":{"method":"POST","url":"http://a/f","postData":{"mimeType":"application/x-www-form-urlencoded",
"params":[{"name":"q","value":"a b"},{"name":"x","value":"&"}]}}}]}}`), "p.har")
	if err != nil {
		t.Fatal(err)
	}
	if got := string(rec.Sessions[0].Requests[0].Body); got != "q=a+b&x=%26" {
		t.Errorf("body %q", got)
	}
}

func TestHARErrors(t *testing.T) {
	tests := []struct{ har, want string }{
		{`not json`, "not a HAR file"},
		{`{"log":{"entries":[]}}`, "records no http or https request"},
		{`{"log":{"entries":[{"startedDateTime":"yesterday","request":{"method":"GET","url":"http://a/"}}]}}`, "not an RFC 3339 time"},
		{`{"log":{"entries":[{"startedDateTime":"2026-01-01T00:00:00Z","_fromCache":"memory","request":{"method":"GET","url":"http://a/"}}]}}`, "records no http or https request"},
	}
	for _, tt := range tests {
		if _, err := ParseHAR(strings.NewReader(tt.har), "x.har"); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: error %v, want %q", tt.har, err, tt.want)
		}
	}
}

// Whatever a HAR file holds, a recording that parses writes a plan that
// validates.
func FuzzParseHAR(f *testing.F) {
	seed, err := os.ReadFile("testdata/firefox.har")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(seed)
	f.Add([]byte(`{"log":{"entries":[{"startedDateTime":"2026-01-01T00:00:00Z","request":{"method":"p0st","url":"http://[::1]:1/a%20b?c=${d}&token=%zz","headers":[{"name":"bad name","value":"x\ny"}],"postData":{"mimeType":"application/json","text":"{\"password\":\"\\u0000\"}"}}}]}}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		rec, err := ParseHAR(bytes.NewReader(b), "f.har")
		if err != nil {
			return
		}
		src, err := Write(rec, Options{})
		if err != nil {
			return
		}
		validates(t, src, nil)
	})
}

// Whatever a curl command holds, one that parses writes a plan that
// validates.
func FuzzParseCurl(f *testing.F) {
	f.Add(`curl 'http://127.0.0.1:8080/login' -H 'Content-Type: application/json' --data-raw $'{"password":"x"}'`)
	f.Add(`curl -u a:b -XPATCH -H 'X: ${y}' -d 'secret=%41' 127.0.0.1`)
	f.Fuzz(func(t *testing.T, cmd string) {
		rec, err := ParseCurl(cmd, t.TempDir())
		if err != nil {
			return
		}
		src, err := Write(rec, Options{})
		if err != nil {
			return
		}
		validates(t, src, nil)
	})
}

func TestKeepHosts(t *testing.T) {
	load := func() *Recording {
		rec, err := ParseHAR(strings.NewReader(`{"log":{"pages":[{"id":"p","title":"p"}],"entries":[
{"pageref":"p","startedDateTime":"2026-01-01T00:00:00Z","request":{"method":"GET","url":"http://shop.example/"}},
{"pageref":"p","startedDateTime":"2026-01-01T00:00:01Z","request":{"method":"GET","url":"https://cdn.tracker.example/a.js"}},
{"pageref":"p","startedDateTime":"2026-01-01T00:00:02Z","request":{"method":"GET","url":"http://api.shop.example:8080/items"}},
{"startedDateTime":"2026-01-01T00:00:03Z","request":{"method":"GET","url":"https://cdn.tracker.example/b.js"}}]}}`), "h.har")
		if err != nil {
			t.Fatal(err)
		}
		return rec
	}
	tests := []struct {
		patterns []string
		want     string
	}{
		{[]string{"shop.example", "*.shop.example"}, "p: http://shop.example/ http://api.shop.example:8080/items"},
		{[]string{"*.shop.example:8080"}, "p: http://api.shop.example:8080/items"},
		{[]string{"cdn.*"}, "p: https://cdn.tracker.example/a.js requests: https://cdn.tracker.example/b.js"},
	}
	for _, tt := range tests {
		rec := load()
		if err := KeepHosts(rec, tt.patterns); err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, s := range rec.Sessions {
			got = append(got, s.Name+":")
			for _, r := range s.Requests {
				got = append(got, r.URL.String())
			}
		}
		if strings.Join(got, " ") != tt.want {
			t.Errorf("%v kept %q, want %q", tt.patterns, strings.Join(got, " "), tt.want)
		}
	}
	err := KeepHosts(load(), []string{"nowhere.example"})
	if err == nil || !strings.Contains(err.Error(), "api.shop.example:8080, cdn.tracker.example, shop.example") {
		t.Errorf("no match: %v", err)
	}
}
