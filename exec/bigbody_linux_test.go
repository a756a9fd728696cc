package exec

import (
	"bytes"
	"fmt"
	"net"
	"net/http"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/tressi/tressi/results"
)

// Bodies are streamed, never held: a server sending 60 MiB bodies on four
// connections at once leaves the process's peak memory where it was, on
// both engines (held, they would take 240 MiB and more).
func TestHugeBodiesAreStreamed(t *testing.T) {
	if testing.Short() {
		t.Skip("moves 1 GiB over loopback")
	}
	const size = 60 << 20
	chunk := bytes.Repeat([]byte("x"), 64<<10)
	addr := rawServer(t, func(c net.Conn, _ *http.Request) bool {
		write(c, "HTTP/1.1 200 OK\r\nContent-Length: "+strconv.Itoa(size)+"\r\n\r\n")
		for sent := 0; sent < size; sent += len(chunk) {
			if _, err := c.Write(chunk); err != nil {
				return false
			}
		}
		return true
	})
	for _, engine := range []string{EngineFasthttp, EngineLoop} {
		t.Run(engine, func(t *testing.T) {
			s := schedule(addr, 8, 25*time.Millisecond)
			s.Targets[0].Connections = 4
			s.Targets[0].Timeout = time.Minute
			base := resetPeakRSS(t)
			_, rows := runPlan(t, s, Options{Engine: engine})
			peak := peakRSS(t)
			for _, r := range rows {
				if r.Error != results.None || r.BytesIn < size {
					t.Fatalf("row %+v", r)
				}
			}
			t.Logf("%s: RSS %d MiB before, peak %d MiB", engine, base>>20, peak>>20)
			if peak-base > 64<<20 {
				t.Fatalf("peak RSS grew by %d MiB reading 60 MiB bodies: bodies are held", (peak-base)>>20)
			}
		})
	}
}

// resetPeakRSS resets the kernel's peak RSS of this process and returns
// the RSS now; the test skips where the kernel does not allow it.
func resetPeakRSS(t *testing.T) int64 {
	t.Helper()
	if err := os.WriteFile("/proc/self/clear_refs", []byte("5"), 0); err != nil {
		t.Skipf("cannot reset the peak RSS here: %v", err)
	}
	return procStatus(t, "VmRSS:")
}

func peakRSS(t *testing.T) int64 { return procStatus(t, "VmHWM:") }

// procStatus reads a kB figure of /proc/self/status, in bytes.
func procStatus(t *testing.T, key string) int64 {
	t.Helper()
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Fatal(err)
	}
	i := bytes.Index(b, []byte(key))
	if i < 0 {
		t.Fatalf("no %s in /proc/self/status", key)
	}
	var kb int64
	if _, err := fmt.Sscan(string(b[i+len(key):]), &kb); err != nil {
		t.Fatal(err)
	}
	return kb << 10
}
