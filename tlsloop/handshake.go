package tlsloop

import (
	"context"
	"crypto/tls"
	"encoding/binary"
	"fmt"
	"net"
	"os"
	"sync"
	"time"

	"golang.org/x/sys/unix"
)

// Handshaker runs one loop's TLS handshakes, each in its own goroutine over
// a blocking view of the loop's socket, and tells the loop when one is done
// by making its eventfd (Fd) readable: the loop adds Fd to its epoll set and
// calls Done when it fires.
type Handshaker struct {
	efd int
	wg  sync.WaitGroup

	mu   sync.Mutex
	done []Result
	live map[uint64]net.Conn // handshakes in progress, by key: Abort cuts them short
	cut  bool
}

// Result is a finished handshake: Conn on success, else Err (the socket is
// then still the loop's to close).
type Result struct {
	Key  uint64 // what Start was given
	Conn *Conn
	Err  error
	At   time.Time // when the handshake ended
}

// NewHandshaker makes a Handshaker with its eventfd.
func NewHandshaker() (*Handshaker, error) {
	efd, err := unix.Eventfd(0, unix.EFD_NONBLOCK|unix.EFD_CLOEXEC)
	if err != nil {
		return nil, os.NewSyscallError("eventfd", err)
	}
	return &Handshaker{efd: efd, live: map[uint64]net.Conn{}}, nil
}

// Fd is the eventfd that becomes readable when a handshake finished.
func (h *Handshaker) Fd() int { return h.efd }

// Start begins the client handshake of cfg on the connected, non-blocking
// socket fd, which the loop must not read or write (nor watch) until the
// Result for key comes back from Done. sock is how the loop reads and
// writes fd afterwards. The handshake fails at deadline.
//
// fd is duplicated here, on the caller's goroutine, so the handshake keeps
// its socket even if the loop closes fd meanwhile (an abort).
func (h *Handshaker) Start(key uint64, fd int, sock Socket, cfg *tls.Config, deadline time.Time) error {
	dup, err := unix.FcntlInt(uintptr(fd), unix.F_DUPFD_CLOEXEC, 0)
	if err != nil {
		return os.NewSyscallError("fcntl", err)
	}
	h.wg.Add(1)
	go h.run(key, dup, sock, cfg, deadline)
	return nil
}

func (h *Handshaker) run(key uint64, dup int, sock Socket, cfg *tls.Config, deadline time.Time) {
	defer h.wg.Done()
	f := os.NewFile(uintptr(dup), "tls-handshake")
	nc, err := net.FileConn(f) // its own duplicate, in the runtime's poller
	f.Close()
	if err != nil {
		h.finish(Result{Key: key, Err: fmt.Errorf("tls handshake: %w", err), At: time.Now()})
		return
	}
	if err := nc.SetDeadline(deadline); err != nil {
		nc.Close()
		h.finish(Result{Key: key, Err: err, At: time.Now()})
		return
	}
	if !h.track(key, nc) {
		nc.Close()
		h.finish(Result{Key: key, Err: net.ErrClosed, At: time.Now()})
		return
	}
	w := &wire{hs: nc, sock: sock}
	tc := tls.Client(w, cfg)
	err = tc.HandshakeContext(context.Background())
	at := time.Now()
	h.untrack(key)
	// The runtime's view goes: from here the loop alone reads and writes
	// the socket. Whatever the runtime read past the handshake sits in
	// tc's buffer and is read by the loop's first Read.
	w.hs = nil
	nc.Close()
	if err != nil {
		h.finish(Result{Key: key, Err: err, At: at})
		return
	}
	st := tc.ConnectionState()
	h.finish(Result{Key: key, Conn: &Conn{tc: tc, w: w, resumed: st.DidResume, version: st.Version}, At: at})
}

func (h *Handshaker) track(key uint64, nc net.Conn) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.cut {
		return false
	}
	h.live[key] = nc
	return true
}

func (h *Handshaker) untrack(key uint64) {
	h.mu.Lock()
	delete(h.live, key)
	h.mu.Unlock()
}

func (h *Handshaker) finish(r Result) {
	h.mu.Lock()
	h.done = append(h.done, r)
	h.mu.Unlock()
	var one [8]byte
	binary.NativeEndian.PutUint64(one[:], 1)
	for {
		_, err := unix.Write(h.efd, one[:])
		if err != unix.EINTR {
			return // EAGAIN: the counter is full, so the loop is already told
		}
	}
}

// Done appends the handshakes finished since the last call to dst and
// clears the eventfd.
func (h *Handshaker) Done(dst []Result) []Result {
	var buf [8]byte
	for {
		if _, err := unix.Read(h.efd, buf[:]); err != unix.EINTR {
			break
		}
	}
	h.mu.Lock()
	dst = append(dst, h.done...)
	clear(h.done)
	h.done = h.done[:0]
	h.mu.Unlock()
	return dst
}

// Abort ends every handshake in progress at once (each fails with a
// timeout) and every later one before it starts.
func (h *Handshaker) Abort() {
	h.mu.Lock()
	h.cut = true
	past := time.Unix(1, 0)
	for _, nc := range h.live {
		nc.SetDeadline(past)
	}
	h.mu.Unlock()
}

// Close aborts what is in progress, waits for it, and closes the eventfd.
// Results not yet collected are dropped: their sockets are the loop's.
func (h *Handshaker) Close() error {
	h.Abort()
	h.wg.Wait()
	return unix.Close(h.efd)
}
