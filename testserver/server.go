// Package testserver is tressi's built-in test server: a small fasthttp server with
// routes that cover what a load test needs to exercise (fixed answers, chosen
// statuses, delays, echo, a login/bearer-token flow, sized payloads) and exact
// request and connection counters, so tests can check that a run sent exactly
// what its schedule said and never opened more connections than allowed.
//
// It is also the benchmark target of bench/: the route for "/" allocates
// nothing per request, so the server costs as little as possible next to the
// load generator being measured.
package testserver

import (
	"context"
	"errors"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/valyala/fasthttp"
)

// Defaults for Options' zero values.
const (
	DefaultMaxDelay       = 60 * time.Second
	DefaultMaxBytes       = 64 << 20
	DefaultMaxRequestBody = 4 << 20
	DefaultShutdownGrace  = 5 * time.Second
	defaultSecret         = "tressi-target"
)

// Options configures a Server. The zero value is ready to use.
type Options struct {
	// MaxDelay caps /delay/{ms}; longer delays are clamped to it.
	MaxDelay time.Duration
	// MaxBytes caps /bytes/{n}; larger sizes are clamped to it.
	MaxBytes int
	// MaxRequestBody is the largest request body accepted (fasthttp answers
	// 413 above it).
	MaxRequestBody int
	// Secret keys the tokens /login issues, so two servers with the same
	// secret accept each other's tokens and a token survives a restart.
	Secret string
	// ShutdownGrace bounds how long Close waits for busy connections.
	ShutdownGrace time.Duration
	// WSPingInterval is how often WebSocket clients are pinged (Tinode: 50 s).
	WSPingInterval time.Duration
	// WSIdleTimeout drops a WebSocket client silent for this long (Tinode: 55 s).
	WSIdleTimeout time.Duration
	// TinodeTopics is how many group topics every Tinode user is subscribed to.
	TinodeTopics int
	// LogRequests keeps every request received, for Requests (tests).
	LogRequests bool
}

func (o Options) withDefaults() Options {
	if o.MaxDelay <= 0 {
		o.MaxDelay = DefaultMaxDelay
	}
	if o.MaxBytes <= 0 {
		o.MaxBytes = DefaultMaxBytes
	}
	if o.MaxRequestBody <= 0 {
		o.MaxRequestBody = DefaultMaxRequestBody
	}
	if o.Secret == "" {
		o.Secret = defaultSecret
	}
	if o.ShutdownGrace <= 0 {
		o.ShutdownGrace = DefaultShutdownGrace
	}
	if o.WSPingInterval <= 0 {
		o.WSPingInterval = DefaultWSPingInterval
	}
	if o.WSIdleTimeout <= 0 {
		o.WSIdleTimeout = DefaultWSIdleTimeout
	}
	if o.TinodeTopics <= 0 {
		o.TinodeTopics = DefaultTinodeTopics
	}
	return o
}

// Server is the built-in test server. Create it with New; it is safe for
// concurrent use.
type Server struct {
	opts     Options
	srv      *fasthttp.Server
	counters counters
	auth     auth
	tinode   *tinodeHub
	fifo     fifo        // the /queue route's single server
	log      *requestLog // set by Options.LogRequests
	cookies  cookieSessions

	// stallUntil is the end of the current stall window in Unix ns (0: none).
	stallUntil atomic.Int64
	// done is closed by Close so that delayed and stalled requests return at
	// once instead of holding the shutdown for up to MaxDelay.
	done      chan struct{}
	closeOnce sync.Once
	closeErr  error

	// mu guards listeners: Close closes them itself, so a Serve that races
	// with Close cannot start serving after it.
	mu        sync.Mutex
	listeners []net.Listener
}

// New returns a Server configured by opts. Start it with Serve or
// ListenAndServe.
func New(opts Options) *Server {
	s := &Server{opts: opts.withDefaults(), done: make(chan struct{})}
	s.auth = newAuth(s.opts.Secret)
	if s.opts.LogRequests {
		s.log = &requestLog{}
	}
	s.tinode = newTinodeHub(s, s.opts.TinodeTopics)
	s.srv = &fasthttp.Server{
		Handler:            s.handle,
		Name:               "tressi-target",
		MaxRequestBodySize: s.opts.MaxRequestBody,
		ConnState:          s.counters.h1ConnState, // opened when accepted: h2.go
		// Keep-alive connections that stay silent would otherwise hold Close
		// until ShutdownGrace; generators reconnect when they need to.
		IdleTimeout: 30 * time.Second,
		Logger:      discardLogger{},
	}
	return s
}

// Serve serves connections from ln until Close. It returns nil after Close.
func (s *Server) Serve(ln net.Listener) error {
	s.mu.Lock()
	if isClosed(s.done) {
		s.mu.Unlock()
		ln.Close()
		return nil
	}
	pl := s.protocolListener(ln) // HTTP/2 connections go to Go's server (h2.go)
	s.listeners = append(s.listeners, pl)
	s.mu.Unlock()
	err := s.srv.Serve(pl)
	if isClosed(s.done) {
		return nil
	}
	return err
}

// ListenAndServe listens on the TCP address addr and serves until Close.
func (s *Server) ListenAndServe(addr string) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	return s.Serve(ln)
}

// Close stops accepting connections, releases requests waiting in /delay or a
// stall, and waits up to ShutdownGrace for in-flight requests to finish.
// It is safe to call more than once.
func (s *Server) Close() error {
	s.closeOnce.Do(func() {
		s.mu.Lock()
		close(s.done)
		for _, ln := range s.listeners {
			ln.Close()
		}
		s.mu.Unlock()
		ctx, cancel := context.WithTimeout(context.Background(), s.opts.ShutdownGrace)
		defer cancel()
		err := s.srv.ShutdownWithContext(ctx)
		if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, net.ErrClosed) {
			// Busy connections die with the process; listeners were closed above.
			err = nil
		}
		s.closeErr = err
	})
	return s.closeErr
}

// Stall makes every request that arrives within the next d wait until the
// window ends before it is answered, like a server pausing for a GC or a
// failover. Requests already being answered are not affected. A later call
// replaces the window. Tests use it to show coordinated omission: a generator
// that measures from when a request was due sees the stall, others hide it.
func (s *Server) Stall(d time.Duration) {
	s.stallUntil.Store(time.Now().Add(d).UnixNano())
}

// waitStall holds the request while a stall window is open. One atomic load
// when there has never been a stall keeps "/" cheap.
func (s *Server) waitStall() {
	until := s.stallUntil.Load()
	if until == 0 {
		return
	}
	if wait := time.Until(time.Unix(0, until)); wait > 0 {
		s.sleep(wait)
	}
}

// sleep waits for d or until Close, whichever comes first.
func (s *Server) sleep(d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
	case <-s.done:
	}
}

func isClosed(ch chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}

// discardLogger silences fasthttp's own logging: errors a client causes
// (resets, malformed requests) are part of load testing, not news.
type discardLogger struct{}

func (discardLogger) Printf(string, ...any) {}
