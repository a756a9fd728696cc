package exec

import (
	"bufio"
	"errors"
	"fmt"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tressi/tressi/compile"
	"github.com/tressi/tressi/exec/internal/fast"
	"github.com/tressi/tressi/exec/internal/loop"
	"github.com/tressi/tressi/exec/internal/run"
	"github.com/tressi/tressi/results"
)

// rawServer answers each request it reads on a loopback port with reply,
// which writes whatever it likes on the raw connection and says whether
// the connection stays open.
func rawServer(t *testing.T, reply func(c net.Conn, req *http.Request) (keep bool)) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				br := bufio.NewReader(c)
				for {
					req, err := http.ReadRequest(br)
					if err != nil {
						return
					}
					if !reply(c, req) {
						return
					}
				}
			}()
		}
	}()
	return ln.Addr().String()
}

func write(c net.Conn, parts ...string) {
	for _, p := range parts {
		if p == "<pause>" {
			time.Sleep(20 * time.Millisecond)
			continue
		}
		c.Write([]byte(p))
	}
}

// The engines must agree on what a misbehaving server did: every case runs
// through both, one row per slot, with the error word and status a user
// reads in the report.
func TestMisbehavingServers(t *testing.T) {
	const okBody = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"
	cases := []struct {
		name    string
		method  string
		reply   func(c net.Conn, req *http.Request) bool
		status  uint16
		err     results.ErrorKind
		bytesIn uint32 // checked when not 0
	}{
		{"ok keep-alive", "GET", func(c net.Conn, _ *http.Request) bool { write(c, okBody); return true },
			200, results.None, uint32(len(okBody))},
		{"garbage", "GET", func(c net.Conn, _ *http.Request) bool { write(c, "SSH-2.0-OpenSSH_9.6\r\n"); return true },
			0, results.Protocol, 0},
		{"bad status code", "GET", func(c net.Conn, _ *http.Request) bool {
			write(c, "HTTP/1.1 2x0 OK\r\nContent-Length: 0\r\n\r\n")
			return true
		}, 0, results.Protocol, 0},
		{"closed mid-body", "GET", func(c net.Conn, _ *http.Request) bool {
			write(c, "HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nonly ten b")
			return false
		}, 0, results.Reset, 0},
		{"closed before answering", "GET", func(net.Conn, *http.Request) bool { return false },
			0, results.Reset, 0},
		{"reset", "GET", func(c net.Conn, _ *http.Request) bool {
			c.(*net.TCPConn).SetLinger(0)
			return false
		}, 0, results.Reset, 0},
		{"chunked in pieces", "GET", func(c net.Conn, _ *http.Request) bool {
			write(c, "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n", "<pause>", "5\r\nhel", "<pause>", "lo\r\n6\r\n world\r\n", "0\r\n\r\n")
			return true
		}, 200, results.None, 0},
		{"connection close", "GET", func(c net.Conn, _ *http.Request) bool {
			write(c, "HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 2\r\n\r\nok")
			return false
		}, 200, results.None, 0},
		{"HTTP/1.0 body until close", "GET", func(c net.Conn, _ *http.Request) bool {
			write(c, "HTTP/1.0 200 OK\r\n\r\n", "<pause>", "the body ends when the connection does")
			return false
		}, 200, results.None, 0},
		{"slow body", "GET", func(c net.Conn, _ *http.Request) bool {
			write(c, "HTTP/1.1 200 OK\r\nContent-Length: 6\r\n\r\n", "ab", "<pause>", "cd", "<pause>", "ef")
			return true
		}, 200, results.None, 0},
		{"100 continue first", "GET", func(c net.Conn, _ *http.Request) bool {
			write(c, "HTTP/1.1 100 Continue\r\n\r\n", "<pause>", okBody)
			return true
		}, 200, results.None, 0},
		{"204 no body", "GET", func(c net.Conn, _ *http.Request) bool {
			write(c, "HTTP/1.1 204 No Content\r\n\r\n")
			return true
		}, 204, results.None, 0},
		{"HEAD with length", "HEAD", func(c net.Conn, _ *http.Request) bool {
			write(c, "HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\n")
			return true
		}, 200, results.None, 0},
		{"503", "GET", func(c net.Conn, _ *http.Request) bool {
			write(c, "HTTP/1.1 503 Service Unavailable\r\nContent-Length: 4\r\n\r\nbusy")
			return true
		}, 503, results.None, 0},
		{"body too large", "GET", func(c net.Conn, _ *http.Request) bool {
			write(c, "HTTP/1.1 200 OK\r\nContent-Length: 5000\r\n\r\n", strings.Repeat("x", 5000))
			return true
		}, 0, results.BodyTooLarge, 0},
		{"idle connections closed by the server", "GET", func(c net.Conn, _ *http.Request) bool {
			write(c, okBody)
			return false
		}, 200, results.None, 0},
	}
	// A server that closes idle connections without saying so: the loop
	// engine sees the close while the connection is idle and dials anew.
	// fasthttp finds out only by sending on it (it closes its own idle
	// connections after 4 s, before common servers' keep-alive timeouts).
	loopOnly := map[string]bool{"idle connections closed by the server": true}
	for _, engine := range []string{EngineLoop, EngineFasthttp} {
		for _, tc := range cases {
			if loopOnly[tc.name] && engine != EngineLoop {
				continue
			}
			t.Run(engine+"/"+tc.name, func(t *testing.T) {
				t.Parallel()
				addr := rawServer(t, tc.reply)
				const n = 6
				// Slots far enough apart that the server's close (it
				// closes right after answering) reaches the loop before
				// the next send even on a busy machine: a send racing the
				// close is the keep-alive race every client has, not the
				// behaviour this test is about.
				gap := 60 * time.Millisecond
				if loopOnly[tc.name] {
					gap = time.Second
				}
				s := schedule(addr, n, gap)
				s.Targets[0].Connections = 1
				// No case expects a timeout: a long one only keeps a busy
				// machine's stalls (the slots queue on one connection, and
				// the test runs beside the others) from reading as one.
				s.Targets[0].Timeout = 10 * time.Second
				s.Requests[0].Method = tc.method
				out, rows := runPlan(t, s, Options{Engine: engine, MaxResponseBody: 4096})
				if out.Engine != engine {
					t.Fatalf("ran on %q", out.Engine)
				}
				checkOneRowPerSlot(t, rows, n)
				for _, r := range rows {
					if r.Error != tc.err || r.Status != tc.status {
						t.Fatalf("row %+v: want status %d error %q", r, tc.status, tc.err)
					}
					if r.Sent < 0 || r.BytesOut == 0 {
						t.Fatalf("row %+v: the request went out", r)
					}
					if tc.bytesIn != 0 && r.BytesIn != tc.bytesIn {
						t.Fatalf("row %+v: want %d bytes in", r, tc.bytesIn)
					}
					if (r.Error == results.None) != (r.Latency >= 0) {
						t.Fatalf("row %+v: latency only for responses", r)
					}
				}
			})
		}
	}
}

// A garbage line with the connection left open fails at once, not at the
// timeout: nothing more can make it HTTP.
func TestGarbageFailsFast(t *testing.T) {
	for _, engine := range []string{EngineLoop, EngineFasthttp} {
		t.Run(engine, func(t *testing.T) {
			addr := rawServer(t, func(c net.Conn, _ *http.Request) bool {
				write(c, "hello?\n")
				time.Sleep(8 * time.Second)
				return false
			})
			// Waiting for the timeout would take 6 s; failing at the
			// garbage takes milliseconds, and a busy machine's seconds
			// still fit under 3.
			s := schedule(addr, 1, time.Millisecond)
			s.Targets[0].Timeout = 6 * time.Second
			begin := time.Now()
			_, rows := runPlan(t, s, Options{Engine: engine})
			if d := time.Since(begin); d > 3*time.Second {
				t.Fatalf("took %v", d)
			}
			if rows[0].Error != results.Protocol {
				t.Fatalf("row %+v", rows[0])
			}
		})
	}
}

// The loop runs every plan it can reach: endpoints and scenarios, pooled
// or per-session connections, http and https; asking for the loop where
// it cannot run (a target whose address does not resolve) says why.
func TestChooseEngine(t *testing.T) {
	s := schedule("127.0.0.1:1", 1, time.Millisecond)
	ex := &run.Executor{S: s, Shard: results.Shard{Count: 1}}
	if c, err := chooseEngine(ex, ""); err != nil || (loop.LoopSupported() && (c.Name() != EngineLoop || c.Senders() < 1)) {
		t.Fatalf("plain http: %+v %v", c, err)
	}
	// Scenarios, with a connection per session, run on the loop too.
	s.Entries[0].Scenario, s.Entries[0].Connection, s.Targets[0].Connection = true, compile.ConnectionSession, compile.ConnectionSession
	if c, err := chooseEngine(ex, ""); err != nil || (loop.LoopSupported() && c.Name() != EngineLoop) {
		t.Fatalf("scenario: %+v %v", c, err)
	}
	s.Targets[0].Scheme = "https"
	if c, err := chooseEngine(ex, ""); err != nil || (loop.LoopSupported() && c.Name() != EngineLoop) {
		t.Fatalf("https ran on %q (%v)", c.Name(), err)
	}
	s.Targets[0].Addr = "no-such-host.invalid:443"
	if c, _ := chooseEngine(ex, ""); c.Name() != EngineFasthttp {
		t.Fatalf("an unresolvable target ran on %q", c.Name())
	}
	_, err := chooseEngine(ex, EngineLoop)
	var input *InputError
	if err == nil || !strings.Contains(err.Error(), `target "t"`) || !errors.As(err, &input) {
		t.Fatalf("err = %v", err)
	}
	if _, err := chooseEngine(ex, "turbo"); err == nil || !strings.Contains(err.Error(), fmt.Sprintf("use %s or %s", EngineLoop, EngineFasthttp)) {
		t.Fatalf("err = %v", err)
	}
}

// HEAD and GET take turns on one keep-alive connection: a HEAD response's
// Content-Length announces a body that never comes, and the GET after it
// must still read its own.
func TestHeadThenGetOnOneConnection(t *testing.T) {
	for _, engine := range []string{EngineLoop, EngineFasthttp} {
		t.Run(engine, func(t *testing.T) {
			addr := rawServer(t, func(c net.Conn, req *http.Request) bool {
				if req.Method == "HEAD" {
					write(c, "HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\n")
				} else {
					write(c, "HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\n", strings.Repeat("b", 1000))
				}
				return true
			})
			const n = 40
			s := schedule(addr, n, 2*time.Millisecond)
			s.Targets[0].Connections = 1
			s.Requests = append(s.Requests, compile.Request{Name: "head", Method: "HEAD", URI: literal("/"), Static: true})
			s.Entries = append(s.Entries, compile.Entry{Name: "head", Weight: 1, Data: -1, Steps: []compile.Step{{Name: "head", Request: 1}}})
			slots := make([]compile.Slot, n)
			for k := range slots {
				slots[k] = compile.MakeSlot(int64(k)*int64(2*time.Millisecond), k%2)
			}
			s.WithSlots(slots)
			out, rows := runPlan(t, s, Options{Engine: engine})
			checkOneRowPerSlot(t, rows, n)
			if out.OK != n {
				t.Fatalf("%d of %d ok: %v", out.OK, n, out.ErrorKinds)
			}
		})
	}
}

// stuckEngine is an engine whose start fails, as the loop's does when the
// kernel refuses an epoll set.
type stuckEngine struct{ *fast.Engine }

var errNoEpoll = errors.New("starting the loop engine: epoll_create1: too many open files")

func (*stuckEngine) Start() error { return errNoEpoll }

// An engine that fails to start is the run failing, not the user's input:
// Run returns its error (not an InputError, so the CLI exits 3), having
// closed what it opened.
func TestEngineStartFailure(t *testing.T) {
	s := schedule("127.0.0.1:1", 1, time.Millisecond)
	out, err := Run(t.Context(), s, Options{OutDir: filepath.Join(t.TempDir(), "run"),
		engine: func(ex *run.Executor) engine { return &stuckEngine{fast.New(ex, nil)} }})
	var input *InputError
	if out != nil || !errors.Is(err, errNoEpoll) || errors.As(err, &input) {
		t.Fatalf("outcome %v, err %v", out, err)
	}
}
