// Package loop is the epoll engine: an event loop per spare core on raw
// non-blocking sockets, whose connections speak HTTP/1.1, HTTP/2 or
// WebSocket, in one connection table.
//
// A connection's transport (transport.go, run.Transport) sits between its
// socket and its framing: nil for plain sockets, a userspace TLS layer for
// https and wss. Its framing is one of two concrete kinds
// (loopcodec_linux.go: h1Codec; looph2_linux.go: h2mux), and a WebSocket
// session's is package ws. Below, package sys makes every system call;
// above, the open and closed drivers (loopopen_linux.go,
// loopclosed_linux.go) decide when a job starts, and looptimeout_linux.go
// when one has waited too long. docs/engines.md has the whole picture.
package loop
