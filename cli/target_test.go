package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// syncBuffer is a bytes.Buffer safe to write from the command's goroutine
// while the test reads it.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

var listeningRE = regexp.MustCompile(`listening on (http://127\.0\.0\.1:\d+)\n`)

// waitListening returns the base URL the command printed.
func waitListening(t *testing.T, out *syncBuffer) string {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		if m := listeningRE.FindStringSubmatch(out.String()); m != nil {
			return m[1]
		}
		time.Sleep(5 * time.Millisecond)
	}
	t.Fatalf("no listening line in %q", out.String())
	return ""
}

func get(t *testing.T, url string) string {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return string(b)
}

func TestTargetRefusesRemoteAddresses(t *testing.T) {
	for _, addr := range []string{"0.0.0.0:8080", ":8080", "192.0.2.1:8080", "[::]:8080", "example.com:80"} {
		var stdout, stderr bytes.Buffer
		code := Main([]string{"target", "--addr", addr}, nil, nil, &stdout, &stderr)
		if code != ExitInvalid {
			t.Errorf("%s: exit %d, want %d", addr, code, ExitInvalid)
		}
		if msg := stderr.String(); !strings.Contains(msg, "not a loopback address") || !strings.Contains(msg, "--allow-remote") {
			t.Errorf("%s: message %q does not say why or what to do", addr, msg)
		}
		if stdout.Len() != 0 {
			t.Errorf("%s: printed %q", addr, stdout.String())
		}
	}
}

func TestTargetRejectsBadAddresses(t *testing.T) {
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	for _, addr := range []string{"nonsense", busy.Addr().String()} {
		var stdout, stderr bytes.Buffer
		if code := Main([]string{"target", "--addr", addr}, nil, nil, &stdout, &stderr); code != ExitInvalid {
			t.Errorf("%s: exit %d, want %d (stderr %q)", addr, code, ExitInvalid, stderr.String())
		}
	}
}

func TestRunTargetServesUntilCanceled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var out syncBuffer
	done := make(chan error, 1)
	go func() { done <- runTarget(ctx, targetOptions{addr: "localhost:0"}, &out) }()
	base := waitListening(t, &out)
	if body := get(t, base+"/"); body != "ok\n" {
		t.Errorf("GET / = %q", body)
	}
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("runTarget: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("runTarget did not return after cancel")
	}
	if !strings.Contains(out.String(), "served 1 requests") {
		t.Errorf("output %q lacks the request count", out.String())
	}
}

// TestTargetStopsOnSIGINT runs the real command through Main and interrupts
// it the way a terminal would. The signal is sent only after the command
// printed its address, by which time its handler is installed.
func TestTargetStopsOnSIGINT(t *testing.T) {
	var stdout, stderr syncBuffer
	code := make(chan int, 1)
	go func() {
		code <- Main([]string{"target", "--addr", "127.0.0.1:0"}, nil, nil, &stdout, &stderr)
	}()
	base := waitListening(t, &stdout)
	get(t, base+"/status/201")
	if err := syscall.Kill(os.Getpid(), syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	select {
	case c := <-code:
		if c != ExitOK {
			t.Errorf("exit %d, want 0 (stderr %q)", c, stderr.String())
		}
	case <-time.After(10 * time.Second):
		t.Fatal("tressi target did not stop on SIGINT")
	}
}

// `tressi target --tls` serves HTTPS with a certificate it writes for
// clients: examples/http2.hcl, given that file as its CA, speaks h2 to it
// by ALPN, as the example's comment says, and every request is answered.
func TestTargetTLSServesTheHTTP2Example(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("HTTP/2 runs on the loop engine, Linux only")
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	caFile := filepath.Join(t.TempDir(), "ca.pem")
	var out syncBuffer
	done := make(chan error, 1)
	go func() { done <- runTarget(ctx, targetOptions{addr: "127.0.0.1:0", tls: true, caOut: caFile}, &out) }()
	var base string
	for deadline := time.Now().Add(5 * time.Second); base == "" && time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		if m := regexp.MustCompile(`listening on (https://127\.0\.0\.1:\d+)\n`).FindStringSubmatch(out.String()); m != nil {
			base = m[1]
		}
	}
	if base == "" || !strings.Contains(out.String(), "CA certificate: "+caFile+"\n") {
		t.Fatalf("target said %q", out.String())
	}
	dir := filepath.Join(t.TempDir(), "run")
	code, stdout, stderr := run(t, nil, "apply", "../examples/http2.hcl", "--quiet", "--json", "-o", dir,
		"--var", "base_url="+base, "--var", "ca_file="+caFile, "--var", "rate=100", "--var", "duration=1s")
	if code != ExitOK {
		t.Fatalf("apply exit %d\n%s\n%s", code, stdout, stderr)
	}
	var rep struct{ Requests, OK int64 }
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil || rep.Requests != 100 || rep.OK != 100 {
		t.Fatalf("report %+v (%v)\n%s", rep, err, stdout)
	}
	meta, err := os.ReadFile(filepath.Join(dir, "meta.json"))
	if err != nil || !strings.Contains(string(meta), `"h2"`) {
		t.Fatalf("meta.json does not say h2 ran (%v):\n%s", err, meta)
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

func TestTargetCAOutNeedsTLS(t *testing.T) {
	code, _, stderr := run(t, nil, "target", "--addr", "127.0.0.1:0", "--ca-out", filepath.Join(t.TempDir(), "ca.pem"))
	if code != ExitInvalid || !strings.Contains(stderr, "--ca-out goes with --tls") {
		t.Fatalf("exit %d: %s", code, stderr)
	}
}
