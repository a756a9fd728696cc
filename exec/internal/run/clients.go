package run

import (
	"crypto/tls"
	"errors"
	"net"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/tressi/tressi/compile"
	"github.com/tressi/tressi/exec/internal/sys"
	"github.com/valyala/fasthttp"
)

// clients holds one fasthttp HostClient per target and every connection
// they opened, so an abort can cut in-flight requests short.
type clients struct {
	Hosts   []*fasthttp.HostClient
	clock   *sys.Clock
	aborted atomic.Bool
	// Tls: each https target's configuration, by name, shared by every
	// client and loop of the run so sessions resume across connections.
	Tls      map[string]*tls.Config
	tlsStats TLSStats

	mu    sync.Mutex // guards conns and all; taken per dial and close, never per request
	conns map[*meteredConn]struct{}
	// all are every HostClient made (hosts and the sessions' own): their
	// pending requests are the run's in flight (Gauges).
	all []*fasthttp.HostClient
	// owners maps each worker's requests to its response, whose meter
	// says what became of a failed attempt (see retryIdleClosed).
	owners sync.Map // *fasthttp.Request → *fasthttp.Response
}

// Own records that resp receives req's responses.
func (cs *clients) Own(req *fasthttp.Request, resp *fasthttp.Response) { cs.owners.Store(req, resp) }

// retryIdleClosed is fasthttp's retry decision: only a request that went
// out on a connection that had carried a request before (so sat idle in
// the pool) and ended, before any byte of a response, with the peer's
// close goes out again, once: the server closed an idle connection and
// never read it. Anything else is the request's outcome, never retried.
func (cs *clients) retryIdleClosed(req *fasthttp.Request, attempts int, err error) (resetTimeout, retry bool) {
	if attempts > 1 || cs.aborted.Load() {
		return false, false
	}
	v, ok := cs.owners.Load(req)
	if !ok {
		return false, false
	}
	m, ok := v.(*fasthttp.Response).LocalAddr().(*Meter)
	return false, ok && m.reused && m.In == 0 &&
		(ClosedByPeer(err) || errors.Is(err, fasthttp.ErrConnectionClosed) || errors.Is(err, errUnsolicited))
}

// errUnsolicited fails a request before any byte of it is written: its
// pooled connection had bytes waiting (or had ended) while it sat idle,
// an answer nobody asked for. Read as the next request's answer, it would
// be a response the server never gave that request; the loop engine drops
// such a connection too (evloop.event). retryIdleClosed sends the request
// again, on a fresh connection.
var errUnsolicited = errors.New("the server sent bytes on an idle connection, unasked")

func NewClients(targets []compile.Target, clk *sys.Clock, maxBody int) (*clients, error) {
	cs := &clients{clock: clk, conns: map[*meteredConn]struct{}{}, Tls: map[string]*tls.Config{}}
	for i := range targets {
		t := &targets[i]
		if t.Scheme != "https" {
			continue
		}
		cfg, err := NewTLSConfig(t, &cs.tlsStats)
		if err != nil {
			return nil, err
		}
		cs.Tls[t.Name] = cfg
	}
	for i := range targets {
		cs.Hosts = append(cs.Hosts, cs.HostClient(&targets[i], maxBody))
	}
	return cs, nil
}

func (cs *clients) HostClient(t *compile.Target, maxBody int) *fasthttp.HostClient {
	timeout := t.Timeout
	connect := t.ConnectTimeout
	dialers := sourceDialers(t)
	var next atomic.Uint64
	tlsConfig := cs.Tls[t.Name]
	hc := &fasthttp.HostClient{
		Addr:     t.Addr,
		IsTLS:    t.Scheme == "https",
		MaxConns: t.Connections,
		// fasthttp's default of 5 attempts silently resends idempotent
		// requests: a request goes out a second time only when the server
		// provably never read it (retryIdleClosed), whatever its method.
		MaxIdemponentCallAttempts: 2,
		RetryIfErr:                cs.retryIdleClosed,
		MaxResponseBodySize:       maxBody,
		// Bodies are streamed: the worker keeps the prefix it needs and
		// reads the rest through a fixed buffer (worker.readBody), so a
		// server sending huge bodies cannot grow the process.
		StreamResponseBody: true,
		// Waiting for a free connection is part of the request: it ends in
		// the request's own timeout (reported as such) and its time shows in
		// latency, instead of failing at once with ErrNoFreeConns.
		MaxConnWaitTimeout: timeout + time.Second,
		// Closed before common servers close an idle connection (Node's 5 s
		// keep-alive timeout): reusing one they closed would fail a request.
		MaxIdleConnDuration:           4 * time.Second,
		DisablePathNormalizing:        true,
		DisableHeaderNamesNormalizing: true,
		NoDefaultUserAgentHeader:      true,
		Dial: func(addr string) (net.Conn, error) {
			if cs.aborted.Load() {
				return nil, &DialError{Err: ErrAborted}
			}
			// Round robin over the source addresses, as the loop's dials.
			d := dialers[(next.Add(1)-1)%uint64(len(dialers))]
			return cs.dial(d, addr, tlsConfig, connect)
		},
	}
	if hc.IsTLS {
		// Dial hands fasthttp a connection whose handshake is done (it
		// skips its own for a conn with a Handshake method); TLSConfig is
		// set for what else fasthttp reads from it. Plain connections leave
		// the timeouts unset, since every request is sent with DoTimeout,
		// whose deadline (the request's due instant plus the same timeout) is
		// always the earlier one: setting them only cost two clock reads
		// per request.
		hc.WriteTimeout = timeout
		hc.ReadTimeout = timeout
		hc.TLSConfig = tlsConfig
	}
	cs.mu.Lock()
	cs.all = append(cs.all, hc)
	cs.mu.Unlock()
	return hc
}

// sourceDialers are t's dialers: one per source address, or one letting
// the kernel choose.
func sourceDialers(t *compile.Target) []*net.Dialer {
	if len(t.SourceAddresses) == 0 {
		return []*net.Dialer{{Timeout: t.ConnectTimeout}}
	}
	out := make([]*net.Dialer, len(t.SourceAddresses))
	for i, src := range t.SourceAddresses {
		out[i] = &net.Dialer{Timeout: t.ConnectTimeout, LocalAddr: &net.TCPAddr{IP: net.ParseIP(src)}, Control: sys.BindNoPort}
	}
	return out
}

// dial connects to addr and, for an https target (cfg set), completes the
// TLS handshake within the connect timeout too. The time both took is the
// connect_ns of the connection's first request.
func (cs *clients) dial(dialer *net.Dialer, addr string, cfg *tls.Config, connect time.Duration) (net.Conn, error) {
	start := time.Now()
	raw, err := dialer.Dial("tcp", addr)
	if err != nil {
		return nil, &DialError{Err: err}
	}
	if cfg == nil {
		mc := cs.Track(raw, raw)
		mc.connect = int64(time.Since(start))
		return mc, nil
	}
	tc := tls.Client(raw, cfg)
	mc := cs.Track(tc, raw) // tracked during the handshake too: an abort cuts it short
	if err := raw.SetDeadline(start.Add(connect)); err != nil {
		mc.Close()
		return nil, &DialError{Err: err}
	}
	if err := tc.Handshake(); err != nil {
		mc.abortClose()
		if cs.aborted.Load() {
			err = ErrAborted
		}
		return nil, &DialError{Err: AsTLSError(err)}
	}
	if err := raw.SetDeadline(time.Time{}); err != nil {
		mc.Close()
		return nil, &DialError{Err: err}
	}
	mc.connect = int64(time.Since(start))
	return mc, nil
}

// Track registers a new connection: c is what requests use, raw the
// socket under it (c itself without TLS).
func (cs *clients) Track(c, raw net.Conn) *meteredConn {
	mc := &meteredConn{Conn: c, raw: raw, clients: cs}
	if sc, ok := raw.(syscall.Conn); ok {
		mc.sc, _ = sc.SyscallConn()
	}
	cs.mu.Lock()
	cs.conns[mc] = struct{}{}
	cs.mu.Unlock()
	return mc
}

// abort refuses new connections and closes every open one, so requests
// still in flight return at once instead of at their timeout.
func (cs *clients) abort() {
	cs.aborted.Store(true)
	cs.mu.Lock()
	open := make([]*meteredConn, 0, len(cs.conns))
	for c := range cs.conns {
		open = append(open, c)
	}
	cs.mu.Unlock()
	for _, c := range open {
		c.abortClose()
	}
}

// gauges are the connections open now and the requests in flight on the
// fasthttp engine's clients (none on the loop engine's).
func (cs *clients) gauges() (open, inFlight int64) {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	for _, hc := range cs.all {
		inFlight += int64(hc.PendingRequests())
	}
	return int64(len(cs.conns)), inFlight
}

// Close closes idle connections at the end of a run.
func (cs *clients) Close() {
	for _, hc := range cs.Hosts {
		hc.CloseIdleConnections()
	}
}

// meteredConn measures each round trip on a connection: when its first byte
// was written and how many bytes went each way.
//
// fasthttp gives no hook between taking a connection from its pool and
// writing, but it calls LocalAddr exactly once at that moment (through
// Response.ParseNetConn) on the goroutine doing the request. LocalAddr
// therefore starts a new meter and returns it as the address, and the
// worker reads it back from Response.LocalAddr after Do. Meters come from a
// pool and return to it only after the worker read them, so a connection
// reused by another worker never writes into a meter still being read.
type meteredConn struct {
	net.Conn
	raw net.Conn        // the socket: Conn itself, or what its TLS runs over
	sc  syscall.RawConn // raw's, to look for bytes nobody asked for
	// unasked: when its round trip began, the connection had bytes
	// waiting that no request asked for (see errUnsolicited).
	unasked bool
	clients *clients
	cur     *Meter
	used    bool // the connection carried a round trip already
	closed  atomic.Bool
	// connect is how long the dial (and TLS handshake) took, until the
	// connection's first round trip takes it over.
	connect int64
	// both is the deadline last set for reads and writes at once.
	both time.Time
}

// Meter is one round trip's measurements; it doubles as the connection's
// local address for fasthttp.
type Meter struct {
	reused  bool // the connection carried a round trip before this one
	conn    net.Conn
	Sent    int64 // ns after run start of the first write; -1 before it
	Out, In int64
	Connect int64 // the connection's connect_ns when this round trip opened it
	// TlsErr is a TLS alert a read met: fasthttp reports it as a closed
	// connection, and the row should say tls.
	TlsErr error
	clock  *sys.Clock
}

var meters = sync.Pool{New: func() any { return new(Meter) }}

func (m *Meter) Network() string { return m.conn.LocalAddr().Network() }
func (m *Meter) String() string  { return m.conn.LocalAddr().String() }

// Release hands the meter back once its reader is done with it.
func (m *Meter) Release() { meters.Put(m) }

// LocalAddr starts a round trip's meter; see meteredConn.
func (c *meteredConn) LocalAddr() net.Addr {
	m := meters.Get().(*Meter)
	m.conn, m.clock, m.Sent, m.Out, m.In, m.reused = c.Conn, c.clients.clock, -1, 0, 0, c.used
	m.Connect, c.connect = c.connect, 0
	m.TlsErr = nil
	c.unasked = c.used && c.sc != nil && sys.BytesWaiting(c.sc)
	c.used = true
	c.cur = m
	return m
}

func (c *meteredConn) Write(b []byte) (int, error) {
	m := c.cur
	if c.unasked {
		return 0, errUnsolicited
	}
	if m != nil && m.Sent < 0 {
		m.Sent = m.clock.Now()
	}
	n, err := c.Conn.Write(b)
	if m != nil {
		m.Out += int64(n)
	}
	return n, err
}

func (c *meteredConn) Read(b []byte) (int, error) {
	n, err := c.Conn.Read(b)
	if m := c.cur; m != nil {
		m.In += int64(n)
		if err != nil && c.raw != c.Conn && isTLSError(err) {
			m.TlsErr = err
		}
	}
	return n, err
}

// SetWriteDeadline sets the read deadline too: fasthttp sets both to the
// request's deadline, the write one first, and one call sets both (the
// runtime then keeps one timer for the two) instead of two.
func (c *meteredConn) SetWriteDeadline(t time.Time) error {
	if err := c.Conn.SetDeadline(t); err != nil {
		c.both = time.Time{}
		return err
	}
	c.both = t
	return nil
}

// SetReadDeadline skips what SetWriteDeadline already set.
func (c *meteredConn) SetReadDeadline(t time.Time) error {
	if !t.IsZero() && t == c.both {
		return nil
	}
	c.both = time.Time{}
	return c.Conn.SetReadDeadline(t)
}

// SetDeadline keeps both in step with what it set.
func (c *meteredConn) SetDeadline(t time.Time) error {
	c.both = time.Time{}
	return c.Conn.SetDeadline(t)
}

// Handshake tells fasthttp the TLS handshake is done (dial did it); on a
// plain connection fasthttp never asks.
func (c *meteredConn) Handshake() error { return nil }

func (c *meteredConn) Close() error {
	if c.closed.Swap(true) {
		return nil
	}
	c.clients.mu.Lock()
	delete(c.clients.conns, c)
	c.clients.mu.Unlock()
	return c.Conn.Close()
}

// abortClose closes the socket itself: a TLS close would first try to send
// a close_notify, which a full socket could hold up.
func (c *meteredConn) abortClose() {
	if c.closed.Swap(true) {
		return
	}
	c.clients.mu.Lock()
	delete(c.clients.conns, c)
	c.clients.mu.Unlock()
	c.raw.Close()
}
