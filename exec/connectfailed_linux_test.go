package exec

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tressi/tressi/results"
	"github.com/tressi/tressi/testserver"
	"golang.org/x/net/http2"
)

const connectFailedPlan = `
target "t" {
  url         = "http://%s"
  protocol    = "%s"
  connections = 3
  timeout     = "200ms"
%s}
endpoint "slow" {
  path = "/delay/2000"
}
load {
  stage {
    duration = "1s"
    rate     = 20
  }
}
`

// A request that opened a connection and then failed keeps that
// connection's connect_ns, as an answered one does, on every engine and
// protocol: each failure closes its connection (an HTTP/1.1 timeout; an
// h2c server that drops the connection on a request's HEADERS), so later
// requests open new ones, and the rows carrying a connect
// time are the connections the server accepted that the warm-up did not
// open (most of them: see the check). The loop engine once wrote 0 on every failed row.
func TestFailedRowsKeepConnectTime(t *testing.T) {
	ts := testserver.New(testserver.Options{})
	h1 := serveCounting(t, func(ln net.Listener) { go ts.Serve(ln) }, func() { ts.Close() })
	var h2Conns atomic.Int64
	h2c := serveCounting(t, func(ln net.Listener) { go closeOnHeaders(ln, &h2Conns) }, func() {})
	cases := []struct {
		name, addr, protocol, engine, extra string
		err                                 results.ErrorKind
		accepted                            func() int64
	}{
		{"http1/loop", h1, "http1", EngineLoop, "", results.Timeout, func() int64 { return int64(ts.Stats().ConnsAccepted) }},
		{"http1/fasthttp", h1, "http1", EngineFasthttp, "", results.Timeout, func() int64 { return int64(ts.Stats().ConnsAccepted) }},
		{"h2c/loop", h2c, "h2c", EngineLoop, "  max_streams = 1\n", results.Reset, h2Conns.Load},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			before := c.accepted()
			s := compilePlan(t, fmt.Sprintf(connectFailedPlan, c.addr, c.protocol, c.extra), nil)
			out, rows := runPlan(t, s, Options{Engine: c.engine})
			checkOneRowPerSlot(t, rows, int(s.Count))
			carrying := int64(0)
			for _, r := range rows {
				if r.Error != c.err {
					t.Fatalf("%s: row %+v, want %s", out.Engine, r, c.err)
				}
				if r.Connect > 0 {
					carrying++
				}
			}
			var meta Meta
			if b, err := os.ReadFile(filepath.Join(out.Dir, MetaFile)); err != nil || json.Unmarshal(b, &meta) != nil {
				t.Fatalf("meta.json: %v", err)
			}
			warm := int64(0)
			if meta.Warmup != nil {
				warm = meta.Warmup.Connections
			}
			// Every row carrying a connect time opened one of these; a
			// connect still in flight when its request timed out (a busy
			// machine) is accepted by the server and carried by no row.
			if opened := c.accepted() - before - warm; carrying == 0 || carrying > opened || 2*carrying < opened {
				t.Fatalf("%s: %d of %d failed rows carry connect_ns; the run opened %d connections after the warm-up's %d",
					out.Engine, carrying, len(rows), opened, warm)
			}
		})
	}
}

// serveCounting has serve serve a loopback listener, stopped by stop when
// the test ends, and returns its address.
func serveCounting(t *testing.T, serve func(net.Listener), stop func()) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	serve(ln)
	t.Cleanup(stop)
	return ln.Addr().String()
}

// closeOnHeaders serves h2c connections from ln that do the connection
// preface and SETTINGS and then drop the connection as soon as a request's
// HEADERS arrive, counting the connections in n.
func closeOnHeaders(ln net.Listener, n *atomic.Int64) {
	for {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		n.Add(1)
		go func() {
			defer c.Close()
			c.SetDeadline(time.Now().Add(10 * time.Second))
			preface := make([]byte, len(http2.ClientPreface))
			if _, err := io.ReadFull(c, preface); err != nil {
				return
			}
			fr := http2.NewFramer(c, c)
			if fr.WriteSettings() != nil {
				return
			}
			for {
				f, err := fr.ReadFrame()
				if err != nil {
					return
				}
				switch f := f.(type) {
				case *http2.SettingsFrame:
					if !f.IsAck() && fr.WriteSettingsAck() != nil {
						return
					}
				case *http2.HeadersFrame:
					c.(*net.TCPConn).SetLinger(0)
					return
				}
			}
		}()
	}
}
