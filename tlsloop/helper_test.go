package tlsloop

import (
	"os"
	"testing"

	"github.com/tressi/tressi/testserver/child"
)

// TestMain doubles as a TLS server in a process of its own (see
// startHelperServer), so allocation counts see only the client.
func TestMain(m *testing.M) {
	if child.Kind() == "tls" {
		child.ServeOKOverTLS()
		return
	}
	os.Exit(m.Run())
}

// startHelperServer starts this test binary as a TLS server answering
// every request with "ok", and returns its address. It exits with the test.
func startHelperServer(t *testing.T) string { return child.Start(t, "tls") }
