package tlsloop

import (
	"bytes"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"log"
	"math/rand/v2"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// miniLoop is the smallest event loop that drives one connection the way
// the engine does: a non-blocking socket, bytes moved between it and the
// Conn, wake-ups from the handshake's goroutine.
type miniLoop struct {
	t    *testing.T
	fd   int
	c    *Conn
	woke chan struct{}
}

func newMiniLoop(t *testing.T) *miniLoop {
	l := &miniLoop{t: t, fd: -1, woke: make(chan struct{}, 1)}
	t.Cleanup(func() {
		if l.c != nil {
			l.c.Close()
		}
		if l.fd >= 0 {
			unix.Close(l.fd)
		}
	})
	return l
}

func (l *miniLoop) wake() {
	select {
	case l.woke <- struct{}{}:
	default:
	}
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
	l.fd = fd
	pfd := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLOUT}}
	if _, err := unix.Poll(pfd, 5000); err != nil {
		l.t.Fatal(err)
	}
	if e, _ := unix.GetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_ERROR); e != 0 {
		l.t.Fatal(syscall.Errno(e))
	}
}

// flush writes what the Conn has for the socket, waiting while it is full.
func (l *miniLoop) flush() {
	for {
		b := l.c.Pending()
		if len(b) == 0 {
			return
		}
		n, err := unix.Write(l.fd, b)
		if err == unix.EAGAIN || err == unix.EINTR {
			unix.Poll([]unix.PollFd{{Fd: int32(l.fd), Events: unix.POLLOUT}}, 1000)
			continue
		}
		if err != nil {
			l.t.Fatal(err)
		}
		l.c.Sent(n)
	}
}

// pull feeds what the socket has to the Conn, waiting up to wait for it;
// false at the socket's end.
func (l *miniLoop) pull(buf []byte, wait int) bool {
	unix.Poll([]unix.PollFd{{Fd: int32(l.fd), Events: unix.POLLIN}}, wait)
	for {
		n, err := unix.Read(l.fd, buf)
		if err == unix.EAGAIN {
			return true
		}
		if err != nil {
			l.t.Fatal(err)
		}
		if n == 0 {
			return false
		}
		if err := l.c.Feed(buf[:n]); err != nil {
			l.t.Fatal(err)
		}
	}
}

// handshake runs the handshake, moving its bytes whenever it wakes the
// loop or the socket has some.
func (l *miniLoop) handshake(cfg *tls.Config) error {
	l.t.Helper()
	l.c = Client(cfg, l.wake, time.Now().Add(5*time.Second))
	buf := make([]byte, 64<<10)
	deadline := time.Now().Add(10 * time.Second)
	for !l.c.Ready() {
		if err := l.c.Err(); err != nil {
			l.flush() // the alert that says why
			return err
		}
		if time.Now().After(deadline) {
			l.t.Fatal("no handshake in 10 s")
		}
		select {
		case <-l.woke:
		case <-time.After(time.Millisecond):
		}
		l.flush()
		if !l.pull(buf, 0) {
			// The server hung up: after our alert, or on its own.
			for i := 0; i < 1000 && l.c.Err() == nil; i++ {
				time.Sleep(time.Millisecond)
			}
			if err := l.c.Err(); err != nil {
				return err
			}
			l.t.Fatal("the server closed the connection during the handshake")
		}
	}
	l.flush()
	return nil
}

// roundTrip sends req and reads one response with a Content-Length body.
func (l *miniLoop) roundTrip(req []byte, buf []byte) (head string, body []byte) {
	l.t.Helper()
	if _, err := l.c.Write(req); err != nil {
		l.t.Fatal(err)
	}
	l.flush()
	n := 0
	cipher := make([]byte, 64<<10)
	deadline := time.Now().Add(10 * time.Second)
	for {
		m, err := l.c.Read(buf[n:])
		if err != nil {
			l.t.Fatalf("read after %d bytes: %v", n, err)
		}
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
		if m > 0 {
			continue
		}
		l.flush() // a post-handshake message may want an answer
		if time.Now().After(deadline) {
			l.t.Fatalf("no response in 10 s; have %d bytes: %.200q", n, buf[:n])
		}
		if !l.pull(cipher, 1000) {
			l.t.Fatalf("the server closed after %d bytes", n)
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
	srv.Config.ErrorLog = log.New(io.Discard, "", 0) // failed handshakes are some tests' point
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

func TestAHandshakeTheServerNeverAnswersEnds(t *testing.T) {
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
	for _, tc := range []struct {
		name  string
		close bool
	}{{"at its deadline", false}, {"when closed", true}} {
		t.Run(tc.name, func(t *testing.T) {
			l := newMiniLoop(t)
			l.dial(ln.Addr().String())
			start := time.Now()
			c := Client(&tls.Config{ServerName: "x"}, l.wake, start.Add(200*time.Millisecond))
			l.c = c
			if tc.close {
				time.Sleep(20 * time.Millisecond)
				c.Close()
			}
			for c.Err() == nil && time.Since(start) < 10*time.Second {
				time.Sleep(time.Millisecond)
			}
			err := c.Err()
			if err == nil || c.Ready() {
				t.Fatal("the handshake did not fail")
			}
			var ne net.Error
			if !tc.close && !(errors.As(err, &ne) && ne.Timeout()) {
				t.Errorf("error %v is not a timeout", err)
			}
			if time.Since(start) > 5*time.Second {
				t.Errorf("took %v", time.Since(start))
			}
		})
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
	buf, cipher := make([]byte, 64<<10), make([]byte, 64<<10)
	for range 10 {
		l.roundTripQuiet(req, buf, cipher)
	}
	allocs := testing.AllocsPerRun(500, func() { l.roundTripQuiet(req, buf, cipher) })
	t.Logf("%.2f allocations per request", allocs)
	if allocs > 1.1 {
		t.Errorf("%.2f allocations per request, want at most crypto/tls's one per record read", allocs)
	}
}

// roundTripQuiet reads only once the socket is readable, as the loop does:
// each Read that finds no whole record costs crypto/tls's allocation again.
func (l *miniLoop) roundTripQuiet(req, buf, cipher []byte) {
	if _, err := l.c.Write(req); err != nil {
		l.t.Fatal(err)
	}
	for b := l.c.Pending(); len(b) > 0; b = l.c.Pending() {
		n, err := unix.Write(l.fd, b)
		if err != nil {
			l.t.Fatal(err)
		}
		l.c.Sent(n)
	}
	n := 0
	pfd := []unix.PollFd{{Fd: int32(l.fd), Events: unix.POLLIN}}
	for {
		unix.Poll(pfd, 5000)
		m, err := unix.Read(l.fd, cipher)
		if err != nil || m == 0 {
			l.t.Fatal(err)
		}
		l.c.Feed(cipher[:m])
		m, err = l.c.Read(buf[n:])
		n += m
		if n > 4 && bytes.HasSuffix(buf[:n], []byte("\r\n\r\nok")) {
			return
		}
		if err != nil {
			l.t.Fatal(err)
		}
	}
}

// Whatever pieces the socket hands over and whatever buffers Read is given,
// every byte of plaintext comes out: Read skips crypto/tls only when every
// whole record fed has been read (see Conn.records), never when one is
// still inside. The server writes records of random sizes (many to a
// segment, or one split over several) and then closes; the client feeds
// random-sized pieces of the socket and reads into random-sized buffers.
func TestEveryRecordIsReadWhateverThePieces(t *testing.T) {
	for _, version := range []uint16{tls.VersionTLS12, tls.VersionTLS13} {
		t.Run(tls.VersionName(version), func(t *testing.T) {
			srv := newServer(t, version, version, nil) // for its certificate
			ln, err := tls.Listen("tcp", "127.0.0.1:0", srv.TLS)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { ln.Close() })
			rng := rand.New(rand.NewPCG(uint64(version), 7))
			var want []byte
			for range 400 {
				size := 1 + rng.IntN(3000)
				if rng.IntN(20) == 0 {
					size = 20000 + rng.IntN(30000) // more than one record
				}
				chunk := make([]byte, size)
				for i := range chunk {
					chunk[i] = byte(rng.Uint32())
				}
				want = append(want, chunk...)
			}
			go func() {
				nc, err := ln.Accept()
				if err != nil {
					return
				}
				defer nc.Close()
				// Not before the client's go: its handshake must not meet
				// the end of the connection.
				if _, err := io.ReadFull(nc, make([]byte, 2)); err != nil {
					return
				}
				r := rand.New(rand.NewPCG(uint64(version), 8))
				for rest := want; len(rest) > 0; {
					n := min(len(rest), 1+r.IntN(3000))
					if r.IntN(20) == 0 {
						n = min(len(rest), 20000+r.IntN(30000))
					}
					if _, err := nc.Write(rest[:n]); err != nil {
						return
					}
					rest = rest[n:]
				}
			}()
			l := newMiniLoop(t)
			l.dial(ln.Addr().String())
			if err := l.handshake(&tls.Config{RootCAs: serverPool(srv), ServerName: "example.com", MinVersion: version, MaxVersion: version}); err != nil {
				t.Fatal(err)
			}
			if _, err := l.c.Write([]byte("go")); err != nil {
				t.Fatal(err)
			}
			l.flush()
			var got []byte
			cipher, buf := make([]byte, 64<<10), make([]byte, 64<<10)
			ended := false // the server's close_notify came
			for deadline := time.Now().Add(20 * time.Second); !ended; {
				if time.Now().After(deadline) {
					t.Fatalf("%d of %d bytes after 20 s", len(got), len(want))
				}
				unix.Poll([]unix.PollFd{{Fd: int32(l.fd), Events: unix.POLLIN}}, 100)
				n, err := unix.Read(l.fd, cipher[:1+rng.IntN(len(cipher))])
				if err == unix.EAGAIN {
					continue
				}
				if err != nil || n == 0 {
					t.Fatalf("the socket ended (%v) with %d of %d bytes read: plaintext left unread", err, len(got), len(want))
				}
				l.c.Feed(cipher[:n])
				for {
					m, err := l.c.Read(buf[:1+rng.IntN(len(buf))])
					got = append(got, buf[:m]...)
					if err == io.EOF {
						ended = true
						break
					}
					if err != nil {
						t.Fatal(err)
					}
					if m == 0 {
						break
					}
				}
				l.flush()
			}
			if !bytes.Equal(got, want) {
				t.Fatalf("%d bytes read differ from the %d written", len(got), len(want))
			}
		})
	}
}
