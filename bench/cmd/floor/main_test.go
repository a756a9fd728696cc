package main

import (
	"encoding/json"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// TestMain runs floor's main when the test binary is started as floor (by
// runFloor): the loop's raw syscalls hold their thread, so it runs in a
// process of its own, apart from the test's server.
func TestMain(m *testing.M) {
	if os.Getenv("FLOOR_TEST_MAIN") == "1" {
		os.Args = append([]string{"floor"}, strings.Fields(os.Getenv("FLOOR_TEST_ARGS"))...)
		main()
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// runFloor runs floor with args and returns its result, or its stderr and
// the error it exited with.
func runFloor(t *testing.T, args ...string) (result, string, error) {
	t.Helper()
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), "FLOOR_TEST_MAIN=1", "FLOOR_TEST_ARGS="+strings.Join(args, " "))
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	var res result
	if err == nil {
		if jerr := json.Unmarshal(out, &res); jerr != nil {
			t.Fatalf("floor printed %q: %v", out, jerr)
		}
	}
	return res, stderr.String(), err
}

// fixedServer is a Go HTTP/1.1 server on loopback answering every request
// with the same 3-byte body (size grows the body by one byte a request).
func fixedServer(t *testing.T, grow bool) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header()["Date"] = nil // a fixed size: no Date header
		body := "ok\n"
		if grow {
			n++
			body = strings.Repeat("x", n)
		}
		w.Write([]byte(body))
	})}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return "http://" + ln.Addr().String() + "/"
}

func TestClosedModelRunsEveryConnection(t *testing.T) {
	res, stderr, err := runFloor(t, "--url", fixedServer(t, false), "--conns", "3", "--duration", "300ms")
	if err != nil {
		t.Fatalf("%v: %s", err, stderr)
	}
	if res.Conns != 3 || res.Requests < 3 || res.ResponseSize < len("HTTP/1.1 200 OK\r\n\r\nok\n") || res.CPUUsPerRq <= 0 {
		t.Fatalf("result %+v: want at least a request a connection, the response's size and a CPU figure", res)
	}
}

// The io_uring loop carries every connection too, and says it ran; where
// the kernel refuses io_uring or lacks what the loop uses (a seccomp
// profile, io_uring_disabled, before 6.1) it says so and the test skips.
func TestClosedModelThroughIOUring(t *testing.T) {
	res, stderr, err := runFloor(t, "--url", fixedServer(t, false), "--conns", "5", "--duration", "300ms", "--uring")
	if err != nil && strings.Contains(stderr, "io_uring") && !strings.Contains(stderr, "io_uring_enter") {
		t.Skipf("no io_uring here: %s", stderr)
	}
	if err != nil {
		t.Fatalf("%v: %s", err, stderr)
	}
	if res.Backend != "io_uring" || res.Conns != 5 || res.Requests < 5 || res.CPUUsPerRq <= 0 {
		t.Fatalf("result %+v: want the io_uring backend, at least a request a connection and a CPU figure", res)
	}
}

func TestOpenModelSendsTheRate(t *testing.T) {
	res, stderr, err := runFloor(t, "--url", fixedServer(t, false), "--conns", "4", "--rate", "2000", "--duration", "500ms")
	if err != nil {
		t.Fatalf("%v: %s", err, stderr)
	}
	if res.Requests != 1000 || (res.Wait != "epoll_pwait2" && res.Wait != "epoll_wait") {
		t.Fatalf("result %+v: want 2000/s × 0.5 s = 1000 requests and the wait named", res)
	}
}

func TestRefusals(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"not loopback", []string{"--url", "http://10.0.0.1:80/"}, "loopback only"},
		{"a host name", []string{"--url", "http://localhost:80/"}, "loopback only"},
		{"https", []string{"--url", "https://127.0.0.1:443/"}, "want http://"},
		{"no port", []string{"--url", "http://127.0.0.1/"}, "want http://"},
		{"responses of several sizes", []string{"--url", fixedServer(t, true), "--conns", "2"}, "all one size"},
		{"io_uring in the open model", []string{"--url", "http://127.0.0.1:1/", "--rate", "100", "--uring"}, "closed model only"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, stderr, err := runFloor(t, tc.args...)
			if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 || !strings.Contains(stderr, tc.want) {
				t.Fatalf("exit %v, stderr %q: want exit status 1 and %q", err, stderr, tc.want)
			}
		})
	}
}

func TestRequestIsWrksGet(t *testing.T) {
	_, req, err := target("http://[::1]:8080/a?b=1")
	if err != nil || string(req) != "GET /a?b=1 HTTP/1.1\r\nHost: [::1]:8080\r\n\r\n" {
		t.Fatalf("request %q, err %v", req, err)
	}
}
