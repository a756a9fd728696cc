// Package child runs a test binary again as a server in a process of its
// own, so what a test counts (CPU, allocations) is the client's side only.
// The test's TestMain asks Kind first and, when it names a server, serves
// that instead of running the tests; Start, in the test, runs the binary
// so and returns the address the server printed. The server ends with the
// test that started it.
package child

import (
	"bufio"
	"bytes"
	"crypto/tls"
	"io"
	"net"
	"net/http/httptest"
	"os"
	"os/exec"
	"strings"
	"testing"
)

const kindVar = "TRESSI_CHILD_SERVER"

// Kind is the server this process is to be, "" for the tests themselves.
func Kind() string { return os.Getenv(kindVar) }

// Start runs this test binary as the server kind (see Kind) and returns
// the address it listens on.
func Start(t testing.TB, kind string) string {
	t.Helper()
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), kindVar+"="+kind)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { stdin.Close(); cmd.Wait() })
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		t.Fatalf("child server %s: %v", kind, err)
	}
	return strings.TrimSpace(line)
}

// Serve, in the child, tells Start the address of ln and blocks until the
// test ends (it closes the child's stdin), then exits.
func Serve(ln net.Listener) {
	os.Stdout.WriteString(ln.Addr().String() + "\n")
	io.Copy(io.Discard, os.Stdin)
	os.Exit(0)
}

// Listen listens on loopback, over TLS with a throwaway certificate (one
// no client trusts) when overTLS; it exits the child on failure.
func Listen(overTLS bool) net.Listener {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		os.Exit(2)
	}
	if overTLS {
		srv := httptest.NewUnstartedServer(nil)
		srv.StartTLS() // for its certificate only
		ln = tls.NewListener(ln, &tls.Config{Certificates: srv.TLS.Certificates})
	}
	return ln
}

// ServeOKOverTLS is the child server answering every HTTP/1.1 request
// "ok" over TLS, with as little work of its own as it can.
func ServeOKOverTLS() {
	ln := Listen(true)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go answerOK(c)
		}
	}()
	Serve(ln)
}

func answerOK(c net.Conn) {
	defer c.Close()
	in := make([]byte, 16<<10)
	n := 0
	resp := []byte("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
	for {
		m, err := c.Read(in[n:])
		if err != nil {
			return
		}
		n += m
		if bytes.HasSuffix(in[:n], []byte("\r\n\r\n")) {
			n = 0
			if _, err := c.Write(resp); err != nil {
				return
			}
		}
	}
}
