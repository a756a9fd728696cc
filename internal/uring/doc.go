// Package uring is the io_uring ABI the loop's poller and bench/floor
// share: a ring set up for one thread, its submission and completion
// queues mapped in, the submissions they use (send, multishot receive into
// provided buffers, multishot poll, cancel) and a ring of provided buffers.
// Raw system calls only, no cgo; Linux only (the other files build
// nowhere else).
package uring
