// Package tlsloop drives crypto/tls over non-blocking sockets that an event
// loop owns, so HTTPS runs on the loop engine with the standard library's
// TLS (verification, TLS 1.2 and 1.3, session resumption) and no
// goroutine per connection.
//
// crypto/tls was written for blocking connections, and the two halves of
// a connection's life fit that differently:
//
//   - The handshake cannot be driven by a loop: an error from the
//     underlying conn during it (even "would block") ends it for good. So
//     each handshake runs in a short-lived goroutine over a blocking view
//     of the socket (a duplicate of its descriptor, handed to the runtime's
//     poller with the connect deadline), and tells the loop through an
//     eventfd in the loop's epoll set when it is done (Handshaker).
//   - After the handshake, tls.Conn.Read treats a temporary net.Error from
//     the underlying conn as "try again later": a partial record stays
//     buffered and nothing is poisoned. Write errors, though, are sticky.
//     So the conn under tls.Conn (wire) reads the socket directly and
//     returns ErrWouldBlock when it is empty, and never fails a write that
//     merely would block: what the socket does not take is kept and sent
//     when the loop sees the socket writable (Conn.Flush).
//
// Post-handshake messages (TLS 1.3 NewSessionTicket, KeyUpdate) are read by
// tls.Conn.Read as they come; a ticket lands in the configuration's
// ClientSessionCache, so the next connection resumes.
//
// Kernel TLS (the "tls" upper layer protocol) would let the loop read and
// write plaintext on the socket itself, but it is not offered where tressi
// was built (/proc/sys/net/ipv4/tcp_available_ulp lists only mptcp), and
// crypto/tls cannot hand its keys to it anyway.
package tlsloop
