package exec

import (
	"os"
	"testing"

	"github.com/tressi/tressi/testserver/child"
)

// TestMain doubles as a server in a process of its own (see
// helperServer), so allocation counts see only tressi's side.
func TestMain(m *testing.M) {
	switch child.Kind() {
	case "tls":
		child.ServeOKOverTLS()
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
func helperServer(t *testing.T, kind string) string { return child.Start(t, kind) }
