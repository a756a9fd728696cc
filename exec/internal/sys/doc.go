// Package sys makes exec's system calls, and nothing else does: the epoll
// poller, sockets, source-address binds, timer slack, receive stamps, file
// limits and the descriptor reserve, the timerfd alarm, the kernel version,
// and the run's clock. The poller's failures come back as
// *os.SyscallError naming the call.
package sys
