package run

// Transport is an optional userspace layer between a connection's socket
// and its codec (TLS is one). Without one (plain HTTP) the loop reads and
// writes the socket straight into and out of the codec's buffers. With
// one, every byte goes through it:
//
//	socket → Feed(bytes read) … Read(plaintext) → codec.decode
//	codec.begin → Write(plaintext) … Pending()/Sent(n) → socket
//
// A transport first has a handshake to finish: until Ready, the loop moves
// the handshake's bytes (Feed what the socket gives, write what Pending
// holds) and sends nothing of the codec's. A transport may do its work on
// another goroutine (crypto/tls run over an in-memory pipe, say): it then
// calls the wake function its factory was given whenever it has bytes for
// the socket, plaintext for the codec, or finished its handshake, and the
// loop pumps the connection again from its own goroutine (evloop.pump).
// Methods are only ever called from the loop's goroutine.
type Transport interface {
	// Feed takes bytes read from the socket. An error fails the exchange
	// (and is what its row's error column classifies).
	Feed(b []byte) error
	// Read moves plaintext the transport holds into p: 0 when it holds
	// none now.
	Read(p []byte) (int, error)
	// Write takes plaintext to send; it is the transport's once taken.
	Write(p []byte) (int, error)
	// Pending is what the transport has for the socket, and Sent says n
	// bytes of it went out.
	Pending() []byte
	Sent(n int)
	// Ready reports the handshake is over: plaintext may flow.
	Ready() bool
	// Err is why the handshake failed, once it did (the loop then fails
	// the connection's job with it); nil otherwise.
	Err() error
	// EOF says the socket ended during the handshake: the handshake fails
	// once it has read what came before (a server's alert, say), and
	// wakes the loop to say so.
	EOF()
	// Close releases the transport; the socket is the loop's to close.
	Close()
}

// TransportFactory makes a new connection's transport; wake asks the loop
// to pump that connection (see transport). Nil on a target: plain sockets.
type TransportFactory func(wake func()) (Transport, error)
