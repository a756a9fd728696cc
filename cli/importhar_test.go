package cli

import (
	"bytes"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/tressi/tressi/recording"
	"github.com/tressi/tressi/testserver"
)

// seen is what the built-in target logged of one request: what a replay
// must send again.
func seen(r testserver.LoggedRequest) string {
	return r.Method + " " + r.URI + " " + r.Body
}

// A session recorded by headless Chromium against the built-in target's
// /browse page, imported and run as written with its secrets passed by
// --var: every session of the run (its own connection) sends exactly the
// recording's requests, in order, and the plan holds none of the secrets.
func TestImportHARFromChromiumReplaysTheRecording(t *testing.T) {
	srv, addr := startTarget(t, testserver.Options{LogRequests: true})

	har := recordHAR(t, fmt.Sprintf("http://%s/browse", addr))
	recorded := srv.Requests()
	dir := t.TempDir()
	harPath := filepath.Join(dir, "browse.har")
	if err := os.WriteFile(harPath, har, 0o644); err != nil {
		t.Fatal(err)
	}
	planPath := filepath.Join(dir, "browse.hcl")
	if code, _, stderr := run(t, nil, "import", "har", harPath, "-o", planPath, "--rate", "3", "--duration", "1s"); code != 0 {
		t.Fatalf("import: exit %d: %s", code, stderr)
	}
	src, err := os.ReadFile(planPath)
	if err != nil {
		t.Fatal(err)
	}
	token := srv.Token("ann")
	for _, secret := range []string{"s3ss10n-c00kie", "q-t0ken-123", "pa55word-x", "hu5h-hush", token} {
		if strings.Contains(string(src), secret) || strings.Contains(string(src), url.QueryEscape(secret)) {
			t.Errorf("the plan holds the recorded secret %q:\n%s", secret, src)
		}
	}
	if code, _, stderr := run(t, nil, "plan", planPath); code != 0 {
		t.Fatalf("tressi plan on the imported plan: exit %d: %s\n%s", code, stderr, src)
	}

	// What the browser sent, in the order the recording says it started
	// (what the server got, in some order: a browser uses several
	// connections); /browse itself and its favicon are part of it too.
	rec, err := recording.ParseHAR(bytes.NewReader(har), "browse.har")
	if err != nil {
		t.Fatal(err)
	}
	var want, got []string
	for _, r := range rec.Sessions[0].Requests {
		want = append(want, r.Method+" "+r.URL.RequestURI()+" "+string(r.Body))
	}
	for _, r := range recorded {
		got = append(got, seen(r))
	}
	if !slices.Equal(slices.Sorted(slices.Values(got)), slices.Sorted(slices.Values(want))) {
		t.Fatalf("the HAR does not hold what the server got:\n%s\nvs\n%s", strings.Join(want, "\n"), strings.Join(got, "\n"))
	}
	code, stdout, stderr := run(t, nil, "apply", planPath, "--out", filepath.Join(t.TempDir(), "run"),
		"--var", "cookie=sid=s3ss10n-c00kie", "--var", "query_token=q-t0ken-123",
		"--var", "body_password=pa55word-x", "--var", "body_secret=hu5h-hush",
		"--var", "authorization=Bearer "+token)
	if code != 0 {
		t.Fatalf("apply: exit %d\n%s%s\nplan:\n%s", code, stdout, stderr, src)
	}
	sessions := map[uint64][]string{}
	var conns []uint64
	for _, r := range srv.Requests()[len(recorded):] {
		if _, ok := sessions[r.Conn]; !ok {
			conns = append(conns, r.Conn)
		}
		sessions[r.Conn] = append(sessions[r.Conn], seen(r))
	}
	if len(conns) != 3 {
		t.Fatalf("%d sessions reached the server, want 3 (1 s at 3 sessions/s)", len(conns))
	}
	for i, c := range conns {
		if got := strings.Join(sessions[c], "\n"); got != strings.Join(want, "\n") {
			t.Errorf("session %d sent:\n%s\nthe recording:\n%s", i, got, strings.Join(want, "\n"))
		}
	}
}

// Firefox's HAR format (recording/testdata/firefox.har: two pages and a
// request outside them, a WebSocket entry, secrets in a query, a cookie, a
// JSON and a form body, a bearer token), imported and run against the
// built-in target with its host and secrets passed as variables: every
// session sends exactly its page's requests, in order.
func TestImportFirefoxHARRuns(t *testing.T) {
	srv, addr := startTarget(t, testserver.Options{LogRequests: true})
	harPath := filepath.Join("..", "recording", "testdata", "firefox.har")
	planPath := filepath.Join(t.TempDir(), "firefox.hcl")
	if code, _, stderr := run(t, nil, "import", "har", harPath, "-o", planPath, "--rate", "6", "--duration", "1s"); code != 0 {
		t.Fatalf("import: exit %d: %s", code, stderr)
	}
	if code, _, stderr := run(t, nil, "import", "har", harPath, "-o", planPath); code != 1 || !strings.Contains(stderr, "--force") {
		t.Errorf("a second import over the plan: exit %d, %s; want 1 and a word about --force", code, stderr)
	}
	f, err := os.Open(harPath)
	if err != nil {
		t.Fatal(err)
	}
	rec, err := recording.ParseHAR(f, "firefox.har")
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	scenarios := map[string]string{} // first request -> the page's requests
	for _, s := range rec.Sessions {
		var reqs []string
		for _, r := range s.Requests {
			reqs = append(reqs, r.Method+" "+r.URL.RequestURI()+" "+string(r.Body))
		}
		scenarios[reqs[0]] = strings.Join(reqs, "\n")
	}
	code, stdout, stderr := run(t, nil, "apply", planPath, "--out", filepath.Join(t.TempDir(), "run"),
		"--var", "host_127_0_0_1_8080_url=http://"+addr,
		"--var", "query_api_key=k3y-ff-001", "--var", "cookie=sid=ff-c00kie-42; theme=dark",
		"--var", "body_password=ff-pa55", "--var", "authorization=Bearer ff-t0ken-abc", "--var", "body_otp=123456")
	if code != 0 {
		t.Fatalf("apply: exit %d\n%s%s", code, stdout, stderr)
	}
	sessions := map[uint64][]string{}
	var conns []uint64
	for _, r := range srv.Requests() {
		if _, ok := sessions[r.Conn]; !ok {
			conns = append(conns, r.Conn)
		}
		sessions[r.Conn] = append(sessions[r.Conn], seen(r))
	}
	if len(conns) != 6 {
		t.Fatalf("%d sessions reached the server, want 6", len(conns))
	}
	ran := map[string]int{}
	for _, c := range conns {
		got := strings.Join(sessions[c], "\n")
		want, ok := scenarios[sessions[c][0]]
		if !ok || got != want {
			t.Errorf("a session sent:\n%s\nwhich is no page of the recording", got)
		}
		ran[sessions[c][0]]++
	}
	if len(ran) != len(scenarios) {
		t.Errorf("the 6 sessions ran %d of the %d pages", len(ran), len(scenarios))
	}
	for _, r := range srv.Requests() {
		if r.URI == "/me" && fmt.Sprint(r.Headers["Authorization"]) != "[Bearer ff-t0ken-abc]" {
			t.Errorf("/me came with Authorization %v", r.Headers["Authorization"])
		}
	}
}
