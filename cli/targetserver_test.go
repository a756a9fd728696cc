package cli

import (
	"net"
	"testing"

	"github.com/tressi/tressi/testserver"
)

// startTarget serves the built-in target on a free loopback port until the
// test ends, and returns it with its address.
func startTarget(t *testing.T, opts testserver.Options) (*testserver.Server, string) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := testserver.New(opts)
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return srv, ln.Addr().String()
}
