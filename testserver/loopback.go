package testserver

import (
	"fmt"
	"net"
)

// Cleaner is the part of testing.TB that StartLoopback uses; taking it
// instead of testing.TB keeps the testing package out of the tressi binary.
type Cleaner interface {
	Cleanup(func())
}

// StartLoopback starts a server on a free port of 127.0.0.1 and returns it
// with its address (host:port; the base URL is "http://"+addr). With a
// non-nil tb the server is closed when the test ends; otherwise the caller
// closes it. At most one Options may be given; none means the defaults.
func StartLoopback(tb Cleaner, opts ...Options) (*Server, string, error) {
	if len(opts) > 1 {
		return nil, "", fmt.Errorf("target.StartLoopback: at most one Options, got %d", len(opts))
	}
	var o Options
	if len(opts) == 1 {
		o = opts[0]
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, "", fmt.Errorf("target: listen on loopback: %w", err)
	}
	s := New(o)
	go s.Serve(ln) //nolint:errcheck // Serve only fails if the listener does; Close ends it.
	if tb != nil {
		tb.Cleanup(func() { s.Close() })
	}
	return s, ln.Addr().String(), nil
}
