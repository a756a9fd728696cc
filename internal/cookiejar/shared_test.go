package cookiejar

import (
	"fmt"
	"strings"
	"sync"
	"testing"
)

// The run's one jar takes the loops' threads in turn (go test -race).
func TestSharedJarAcrossGoroutines(t *testing.T) {
	var s Shared
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			req := []byte("GET / HTTP/1.1\r\nHost: h\r\n\r\n")
			var buf []byte
			for i := range 200 {
				s.SetFromHead([]byte(fmt.Sprintf("HTTP/1.1 200 OK\r\nSet-Cookie: g%d=%d\r\n", g, i)), "h", []byte("/"), false, now)
				buf, _ = s.AppendRequest(buf[:0], req, "h", false, now)
			}
		}()
	}
	wg.Wait()
	got, _ := s.AppendHeader(nil, "h", []byte("/"), false, now)
	for g := range 4 {
		if !strings.Contains(string(got), fmt.Sprintf("g%d=199", g)) || len(got) != len("g0=199; g1=199; g2=199; g3=199") {
			t.Errorf("Cookie %q lacks g%d's last value", got, g)
		}
	}
	if v, ok := s.Get("g2", "h", "/", false, now); v != "199" || !ok {
		t.Errorf("g2 = %q", v)
	}
}
