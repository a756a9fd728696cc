package exec

import (
	"fmt"
	"net"
	"net/http"
	"os"

	osexec "os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tressi/tressi/results"
)

// inNetNS is set in the copy of the test binary that runs inside a network
// namespace of its own (runInNetNS).
const inNetNS = "TRESSI_TEST_IN_NETNS"

// runInNetNS runs test name again in a new network namespace, as root,
// where the ephemeral port range can be narrowed without touching the
// machine's, and reports its result. True: this is the copy inside.
func runInNetNS(t *testing.T, name string) bool {
	if os.Getenv(inNetNS) != "" {
		for _, args := range [][]string{{"link", "set", "lo", "up"}} {
			if out, err := osexec.Command("ip", args...).CombinedOutput(); err != nil {
				t.Fatalf("ip %s: %v: %s", strings.Join(args, " "), err, out)
			}
		}
		return true
	}
	if os.Geteuid() != 0 {
		t.Skip("a network namespace needs root (unshare --net)")
	}
	for _, tool := range []string{"unshare", "ip"} {
		if _, err := osexec.LookPath(tool); err != nil {
			t.Skipf("no %s command (Debian: apt-get install util-linux iproute2)", tool)
		}
	}
	cmd := osexec.Command("unshare", "--net", "--", os.Args[0], "-test.run=^"+name+"$", "-test.v", "-test.count=1")
	cmd.Env = append(os.Environ(), inNetNS+"=1")
	out, err := cmd.CombinedOutput()
	switch {
	case strings.Contains(string(out), "unshare failed"):
		t.Skipf("cannot create a network namespace here: %s", out)
	case err != nil || !strings.Contains(string(out), "--- PASS: "+name):
		t.Fatalf("inside the namespace: %v\n%s", err, out)
	}
	return false
}

// narrowPorts leaves n ephemeral ports in this network namespace.
func narrowPorts(t *testing.T, n int) {
	t.Helper()
	r := fmt.Sprintf("40000 %d", 40000+n-1)
	if err := os.WriteFile("/proc/sys/net/ipv4/ip_local_port_range", []byte(r), 0o644); err != nil {
		t.Fatal(err)
	}
}

// sourcePlan: users users each sending GET / for 1 s to addr over as many
// connections, from %s (a source_addresses line, or none).
const sourcePlan = `
target "t" {
  url         = "http://%s"
  connections = %d
  timeout     = "5s"
  %s
}
endpoint "root" {
  path = "/"
}
load {
  model = "closed"
  stage {
    duration = "1s"
    users    = %d
  }
}
`

// source_addresses spreads an HTTP target's connections over local
// addresses, each with its own ephemeral ports: with 8 ports, 18
// connections to one server need more than one address. Without them the
// same plan runs out of ports (which shows the narrow range is in force);
// with three addresses every row succeeds, and the server sees the
// connections come from all three. Both engines.
func TestHTTPSourceAddresses(t *testing.T) {
	if !runInNetNS(t, "TestHTTPSourceAddresses") {
		return
	}
	var mu sync.Mutex
	peers := map[string]bool{}
	// Listening first, before the range narrows: its port is not one of
	// the 8.
	addr := rawServer(t, func(c net.Conn, _ *http.Request) bool {
		mu.Lock()
		peers[c.RemoteAddr().String()] = true
		mu.Unlock()
		time.Sleep(50 * time.Millisecond) // every connection is in use at once
		_, err := c.Write([]byte("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"))
		return err == nil
	})
	narrowPorts(t, 8)
	const conns = 18
	for _, engine := range []string{EngineLoop, EngineFasthttp} {
		t.Run(engine+"/without", func(t *testing.T) {
			s := compilePlan(t, fmt.Sprintf(sourcePlan, addr, conns, "", conns), nil)
			_, rows := runPlan(t, s, Options{Engine: engine})
			if countErrors(rows)[results.None] == len(rows) {
				t.Fatalf("all %d rows succeeded over 8 ports without source addresses: the port range is not narrow", len(rows))
			}
		})
		t.Run(engine+"/with", func(t *testing.T) {
			mu.Lock()
			clear(peers)
			mu.Unlock()
			line := `source_addresses = ["127.0.0.2", "127.0.0.3", "127.0.0.4"]`
			s := compilePlan(t, fmt.Sprintf(sourcePlan, addr, conns, line, conns), nil)
			_, rows := runPlan(t, s, Options{Engine: engine})
			if errs := countErrors(rows); errs[results.None] != len(rows) || len(rows) < conns {
				t.Fatalf("%d rows, errors %v: want every row ok", len(rows), errs)
			}
			mu.Lock()
			defer mu.Unlock()
			ips := map[string]int{}
			for p := range peers {
				host, _, _ := net.SplitHostPort(p)
				ips[host]++
			}
			if len(ips) != 3 || ips["127.0.0.2"] == 0 || ips["127.0.0.3"] == 0 || ips["127.0.0.4"] == 0 || len(peers) < 9 {
				t.Fatalf("the server saw %d connections from %v: want more than one address's 8 ports, from all three", len(peers), ips)
			}
		})
	}
}
