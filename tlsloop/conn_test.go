package tlsloop

import (
	"bytes"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// fdSocket is the loop's raw I/O on a non-blocking socket.
type fdSocket struct{ fd int }

func (s *fdSocket) Recv(b []byte) (int, syscall.Errno) {
	n, err := unix.Read(s.fd, b)
	if err != nil {
		return 0, err.(syscall.Errno)
	}
	return n, 0
}

func (s *fdSocket) Send(b []byte) (int, syscall.Errno) {
	n, err := unix.Write(s.fd, b)
	if err != nil {
		return 0, err.(syscall.Errno)
	}
	return n, 0
}

// miniLoop is the smallest event loop that drives one connection: what
// the engine does, without the engine.
type miniLoop struct {
	t    *testing.T
	epfd int
	h    *Handshaker
	fd   int
	sock *fdSocket
	c    *Conn
}

func newMiniLoop(t *testing.T) *miniLoop {
	t.Helper()
	epfd, err := unix.EpollCreate1(unix.EPOLL_CLOEXEC)
	if err != nil {
		t.Fatal(err)
	}
	h, err := NewHandshaker()
	if err != nil {
		t.Fatal(err)
	}
	if err := unix.EpollCtl(epfd, unix.EPOLL_CTL_ADD, h.Fd(), &unix.EpollEvent{Events: unix.EPOLLIN, Fd: -1}); err != nil {
		t.Fatal(err)
	}
	l := &miniLoop{t: t, epfd: epfd, h: h, fd: -1}
	t.Cleanup(func() {
		h.Close()
		unix.Close(epfd)
		if l.fd >= 0 {
			unix.Close(l.fd)
		}
	})
	return l
}

// dial connects a non-blocking socket to addr and waits until connected.
func (l *miniLoop) dial(addr string) {
	l.t.Helper()
	ta, err := net.ResolveTCPAddr("tcp", addr)
	if err != nil {
		l.t.Fatal(err)
	}
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_STREAM|unix.SOCK_NONBLOCK|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		l.t.Fatal(err)
	}
	sa := &unix.SockaddrInet4{Port: ta.Port}
	copy(sa.Addr[:], ta.IP.To4())
	if err := unix.Connect(fd, sa); err != nil && err != unix.EINPROGRESS {
		l.t.Fatal(err)
	}
	l.fd, l.sock = fd, &fdSocket{fd}
	pfd := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLOUT}}
	if _, err := unix.Poll(pfd, 5000); err != nil {
		l.t.Fatal(err)
	}
	if e, _ := unix.GetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_ERROR); e != 0 {
		l.t.Fatal(syscall.Errno(e))
	}
}

// handshake runs the handshake through the Handshaker and waits on the
// epoll set for its eventfd, as the engine does.
func (l *miniLoop) handshake(cfg *tls.Config) error {
	l.t.Helper()
	if err := l.h.Start(7, l.fd, l.sock, cfg, time.Now().Add(5*time.Second)); err != nil {
		return err
	}
	evs := make([]unix.EpollEvent, 4)
	var got []Result
	for len(got) == 0 {
		n, err := unix.EpollWait(l.epfd, evs, 10000)
		if err == unix.EINTR {
			continue
		}
		if err != nil || n == 0 {
			l.t.Fatalf("no handshake result: %v", err)
		}
		got = l.h.Done(got)
	}
	if len(got) != 1 || got[0].Key != 7 {
		l.t.Fatalf("results %+v", got)
	}
	if got[0].Err != nil {
		return got[0].Err
	}
	l.c = got[0].Conn
	if err := unix.EpollCtl(l.epfd, unix.EPOLL_CTL_ADD, l.fd, &unix.EpollEvent{Events: unix.EPOLLIN, Fd: int32(l.fd)}); err != nil {
		l.t.Fatal(err)
	}
	return nil
}

// roundTrip sends req and reads one response with a Content-Length body,
// waiting on epoll whenever the socket has nothing more.
func (l *miniLoop) roundTrip(req []byte, buf []byte) (head string, body []byte) {
	l.t.Helper()
	if err := l.c.Write(req); err != nil {
		l.t.Fatal(err)
	}
	n := 0
	evs := make([]unix.EpollEvent, 4)
	deadline := time.Now().Add(10 * time.Second)
	for {
		for l.c.Pending() {
			if err := l.c.Flush(); err != nil {
				l.t.Fatal(err)
			}
			if l.c.Pending() {
				pfd := []unix.PollFd{{Fd: int32(l.fd), Events: unix.POLLOUT}}
				unix.Poll(pfd, 1000)
			}
		}
		m, err := l.c.Read(buf[n:])
		n += m
		if i := bytes.Index(buf[:n], []byte("\r\n\r\n")); i >= 0 {
			h := string(buf[:i])
			cl := -1
			for _, line := range bytes.Split(buf[:i], []byte("\r\n")) {
				if k, v, ok := bytes.Cut(line, []byte(": ")); ok && string(k) == "Content-Length" {
					cl, _ = strconv.Atoi(string(v))
				}
			}
			if cl >= 0 && n >= i+4+cl {
				return h, buf[i+4 : i+4+cl]
			}
		}
		switch {
		case err == nil:
			continue
		case errors.Is(err, ErrWouldBlock):
			if time.Now().After(deadline) {
				l.t.Fatalf("no response in 10 s; have %d bytes: %.200q", n, buf[:n])
			}
			unix.EpollWait(l.epfd, evs, 1000)
		default:
			l.t.Fatalf("read after %d bytes: %v", n, err)
		}
	}
}

func serverPool(srv *httptest.Server) *x509.CertPool {
	pool := x509.NewCertPool()
	pool.AddCert(srv.Certificate())
	return pool
}

func newServer(t *testing.T, min, max uint16, h http.HandlerFunc) *httptest.Server {
	srv := httptest.NewUnstartedServer(h)
	srv.TLS = &tls.Config{MinVersion: min, MaxVersion: max}
	srv.StartTLS()
	t.Cleanup(srv.Close)
	return srv
}

func TestRoundTripsOverTheLoop(t *testing.T) {
	big := bytes.Repeat([]byte("0123456789abcdef"), 1<<16) // 1 MiB: many records, many reads
	for _, tc := range []struct {
		name     string
		min, max uint16
	}{
		{"tls1.2", tls.VersionTLS12, tls.VersionTLS12},
		{"tls1.3", tls.VersionTLS13, tls.VersionTLS13},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := newServer(t, tc.min, tc.max, func(w http.ResponseWriter, r *http.Request) {
				got, _ := io.ReadAll(r.Body)
				switch r.URL.Path {
				case "/big":
					w.Header().Set("Content-Length", strconv.Itoa(len(big)))
					w.Write(big)
				case "/echo-size":
					fmt.Fprintf(w, "%d", len(got))
				default:
					fmt.Fprintf(w, "hello %s", r.URL.Path)
				}
			})
			cfg := &tls.Config{RootCAs: serverPool(srv), ServerName: "example.com", ClientSessionCache: tls.NewLRUClientSessionCache(4)}
			host := srv.Listener.Addr().String()
			buf := make([]byte, 2<<20)
			for conn := range 2 {
				l := newMiniLoop(t)
				l.dial(host)
				if err := l.handshake(cfg); err != nil {
					t.Fatal(err)
				}
				if l.c.Version() != tc.max {
					t.Errorf("version %x, want %x", l.c.Version(), tc.max)
				}
				// The second connection resumes the first one's session:
				// in TLS 1.3 only once the first read its ticket.
				if conn == 1 && !l.c.Resumed() {
					t.Errorf("connection 2 did not resume")
				}
				for i := range 20 {
					_, body := l.roundTrip(fmt.Appendf(nil, "GET /r%d HTTP/1.1\r\nHost: %s\r\n\r\n", i, host), buf)
					if want := fmt.Sprintf("hello /r%d", i); string(body) != want {
						t.Fatalf("body %q, want %q", body, want)
					}
				}
				_, body := l.roundTrip(fmt.Appendf(nil, "GET /big HTTP/1.1\r\nHost: %s\r\n\r\n", host), buf)
				if !bytes.Equal(body, big) {
					t.Fatalf("big body: %d bytes, differs", len(body))
				}
				// A request larger than the socket takes at once: the rest
				// waits in the Conn until Flush.
				req := append(fmt.Appendf(nil, "POST /echo-size HTTP/1.1\r\nHost: %s\r\nContent-Length: %d\r\n\r\n", host, len(big)), big...)
				if _, body := l.roundTrip(req, buf); string(body) != strconv.Itoa(len(big)) {
					t.Fatalf("server read %s bytes, want %d", body, len(big))
				}
			}
		})
	}
}

func TestHandshakeFailuresComeBackAsErrors(t *testing.T) {
	srv := newServer(t, tls.VersionTLS12, tls.VersionTLS13, func(w http.ResponseWriter, r *http.Request) {})
	host := srv.Listener.Addr().String()

	l := newMiniLoop(t)
	l.dial(host)
	err := l.handshake(&tls.Config{ServerName: "example.com", RootCAs: x509.NewCertPool()})
	var ua x509.UnknownAuthorityError
	if !errors.As(err, &ua) {
		t.Errorf("untrusted server: %v, want an unknown authority error", err)
	}

	l = newMiniLoop(t)
	l.dial(host)
	err = l.handshake(&tls.Config{ServerName: "other.test", RootCAs: serverPool(srv)})
	var hn x509.HostnameError
	if !errors.As(err, &hn) {
		t.Errorf("wrong name: %v, want a hostname error", err)
	}
}

func TestAbortEndsAHandshakeTheServerNeverAnswers(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			defer c.Close() // silent: never answers the ClientHello
		}
	}()
	l := newMiniLoop(t)
	l.dial(ln.Addr().String())
	if err := l.h.Start(1, l.fd, l.sock, &tls.Config{ServerName: "x"}, time.Now().Add(time.Minute)); err != nil {
		t.Fatal(err)
	}
	time.Sleep(50 * time.Millisecond)
	start := time.Now()
	l.h.Abort()
	unix.Close(l.fd) // the loop closes its socket at once; the handshake holds its own
	l.fd = -1
	evs := make([]unix.EpollEvent, 2)
	var got []Result
	for len(got) == 0 && time.Since(start) < 10*time.Second {
		unix.EpollWait(l.epfd, evs, 1000)
		got = l.h.Done(got)
	}
	if len(got) != 1 || got[0].Err == nil {
		t.Fatalf("results %+v, want one failed handshake", got)
	}
	if time.Since(start) > 5*time.Second {
		t.Errorf("abort took %v", time.Since(start))
	}
}

// TestSteadyStateAllocations: once connected, the loop's side of a request
// and its response allocates nothing; crypto/tls itself allocates one small
// reader each time it reads a record from the socket (conn.go's
// readFromUntil passes &atLeastReader{...} through an interface), so a
// response in one record costs one allocation. The server runs in another
// process, so only the client's allocations are counted.
func TestSteadyStateAllocations(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates on its own")
	}
	host := startHelperServer(t)
	l := newMiniLoop(t)
	l.dial(host)
	if err := l.handshake(&tls.Config{InsecureSkipVerify: true}); err != nil {
		t.Fatal(err)
	}
	req := fmt.Appendf(nil, "GET / HTTP/1.1\r\nHost: %s\r\n\r\n", host)
	buf := make([]byte, 64<<10)
	for range 10 {
		l.roundTripQuiet(req, buf)
	}
	allocs := testing.AllocsPerRun(500, func() { l.roundTripQuiet(req, buf) })
	t.Logf("%.2f allocations per request", allocs)
	if allocs > 1.1 {
		t.Errorf("%.2f allocations per request, want at most crypto/tls's one per record read", allocs)
	}
}

// roundTripQuiet waits for the response with poll(2), not epoll: the loop
// reads only once the socket is readable, and so must the test, or each
// read that finds nothing costs crypto/tls's allocation again.
func (l *miniLoop) roundTripQuiet(req, buf []byte) {
	if err := l.c.Write(req); err != nil {
		l.t.Fatal(err)
	}
	n := 0
	pfd := []unix.PollFd{{Fd: int32(l.fd), Events: unix.POLLIN}}
	for {
		unix.Poll(pfd, 5000)
		m, err := l.c.Read(buf[n:])
		n += m
		if n > 4 && bytes.HasSuffix(buf[:n], []byte("\r\n\r\nok")) {
			return
		}
		if err != nil && err != ErrWouldBlock {
			l.t.Fatal(err)
		}
	}
}
