// Package tlsloop drives crypto/tls for an event loop: the loop moves a
// connection's bytes between its non-blocking socket and a Conn (Feed what
// the socket gave, write out what Pending holds), and reads and writes
// plaintext through it, so HTTPS runs on the loop engine with the standard
// library's TLS (verification, TLS 1.2 and 1.3, session resumption) and no
// goroutine per connection once it is established.
//
// crypto/tls was written for blocking connections, and the two halves of
// a connection's life fit a loop differently:
//
//   - The handshake cannot be driven step by step: an error from the
//     underlying conn during it (even "would block") ends it for good. So
//     each handshake runs in a short-lived goroutine whose conn blocks
//     until the loop feeds it bytes; whenever the handshake has bytes to
//     send, or ends, the goroutine calls the loop's wake function.
//   - After the handshake, tls.Conn.Read treats a temporary net.Error from
//     the underlying conn as "try again later": a partial record stays
//     buffered and nothing is poisoned (crypto/tls conn.go, readRecordOrCCS).
//     Write errors, though, are sticky. So once established the conn under
//     tls.Conn never blocks: its Read returns ErrWouldBlock when the loop
//     has fed nothing more, and its Write only appends to the bytes the
//     loop sends out, so it never fails.
//
// Post-handshake messages (TLS 1.3 NewSessionTicket, KeyUpdate) are read by
// Read as they come; a ticket lands in the configuration's
// ClientSessionCache, so the next connection resumes the session.
//
// Kernel TLS (the "tls" upper layer protocol) would let the loop read and
// write plaintext on the socket itself, but it is not offered where tressi
// was built (/proc/sys/net/ipv4/tcp_available_ulp lists only mptcp), and
// crypto/tls cannot hand its keys to it anyway.
package tlsloop
