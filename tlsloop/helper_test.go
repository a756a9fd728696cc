package tlsloop

import (
	"bufio"
	"bytes"
	"crypto/tls"
	"net"
	"net/http/httptest"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// TestMain doubles as a TLS server in a process of its own (see
// startHelperServer), so allocation counts see only the client.
func TestMain(m *testing.M) {
	if os.Getenv("TLSLOOP_HELPER_SERVER") == "1" {
		helperServer()
		return
	}
	os.Exit(m.Run())
}

// startHelperServer starts this test binary as a TLS server answering
// every request with "ok", and returns its address. It exits with the test.
func startHelperServer(t *testing.T) string {
	t.Helper()
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), "TLSLOOP_HELPER_SERVER=1")
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
		t.Fatalf("helper server: %v", err)
	}
	return strings.TrimSpace(line)
}

func helperServer() {
	srv := httptest.NewUnstartedServer(nil)
	srv.StartTLS() // for its certificate only
	ln, err := tls.Listen("tcp", "127.0.0.1:0", &tls.Config{Certificates: srv.TLS.Certificates})
	if err != nil {
		os.Exit(2)
	}
	os.Stdout.WriteString(ln.Addr().String() + "\n")
	go func() { // the parent closes stdin when it is done
		var b [1]byte
		os.Stdin.Read(b[:])
		os.Exit(0)
	}()
	for {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		go serveOK(c)
	}
}

func serveOK(c net.Conn) {
	defer c.Close()
	in := make([]byte, 4096)
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
