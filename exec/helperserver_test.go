package exec

import (
	"bufio"
	"bytes"
	"crypto/tls"
	"net"
	"net/http/httptest"
	"os"
	osexec "os/exec"
	"strings"
	"testing"
)

// TestMain doubles as a server in a process of its own (see
// helperServer), so allocation counts see only tressi's side.
func TestMain(m *testing.M) {
	switch os.Getenv("TRESSI_EXEC_HELPER_SERVER") {
	case "tls":
		runHelperTLSServer()
		return
	case "h2c":
		runHelperH2CServer()
		return
	case "target":
		runHelperTarget(false)
		return
	case "target-tls":
		runHelperTarget(true)
		return
	}
	os.Exit(m.Run())
}

// helperTLSServer starts this test binary as an HTTPS server answering
// every request "ok" (with a certificate no one trusts: use
// insecure_skip_verify), and returns its address. It ends with the test.
func helperTLSServer(t *testing.T) string { return helperServer(t, "tls") }

// helperServer starts this test binary as the server of the given kind
// (see TestMain) and returns the address it printed.
func helperServer(t *testing.T, kind string) string {
	t.Helper()
	cmd := osexec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), "TRESSI_EXEC_HELPER_SERVER="+kind)
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

func runHelperTLSServer() {
	srv := httptest.NewUnstartedServer(nil)
	srv.StartTLS() // for its certificate only
	ln, err := tls.Listen("tcp", "127.0.0.1:0", &tls.Config{Certificates: srv.TLS.Certificates})
	if err != nil {
		os.Exit(2)
	}
	os.Stdout.WriteString(ln.Addr().String() + "\n")
	go func() { // the test closes stdin when it is done
		var b [1]byte
		os.Stdin.Read(b[:])
		os.Exit(0)
	}()
	for {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		go serveOKOverTLS(c)
	}
}

func serveOKOverTLS(c net.Conn) {
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
