package uring

import (
	"errors"
	"fmt"
	"os"
	"sync/atomic"
	"unsafe"

	"golang.org/x/sys/unix"
)

// The kernel's io_uring ABI (include/uapi/linux/io_uring.h).
const (
	offSQRing = 0
	offSQEs   = 0x10000000

	setupCQSize        = 1 << 3
	setupCoopTaskrun   = 1 << 8
	setupSingleIssuer  = 1 << 12
	setupDeferTaskrun  = 1 << 13
	featSingleMmap     = 1 << 0
	featExtArg         = 1 << 8
	enterGetEvents     = 1 << 0
	enterExtArg        = 1 << 3
	opPollAdd          = 6
	opAsyncCancel      = 14
	opSend             = 26
	opRecv             = 27
	sqeBufferSelect    = 1 << 5
	sqeCQESkipSuccess  = 1 << 6
	recvMultishot      = 1 << 1
	pollAddMulti       = 1 << 0
	cqeFBuffer         = 1 << 0
	cqeFMore           = 1 << 1
	cqeBufShift        = 16
	registerPbufRing   = 22
	unregisterPbufRing = 23
)

type sqringOffsets struct {
	head, tail, ringMask, ringEntries, flags, dropped, array, resv1 uint32
	userAddr                                                        uint64
}

type cqringOffsets struct {
	head, tail, ringMask, ringEntries, overflow, cqes, flags, resv1 uint32
	userAddr                                                        uint64
}

type params struct {
	sqEntries, cqEntries, flags, sqThreadCPU, sqThreadIdle, features, wqFd uint32
	resv                                                                   [3]uint32
	sqOff                                                                  sqringOffsets
	cqOff                                                                  cqringOffsets
}

// sqe is io_uring_sqe.
type sqe struct {
	opcode      uint8
	flags       uint8
	ioprio      uint16
	fd          int32
	off         uint64
	addr        uint64
	len         uint32
	opFlags     uint32
	userData    uint64
	bufIndex    uint16
	personality uint16
	spliceFdIn  int32
	addr3       uint64
	pad         uint64
}

// CQE is io_uring_cqe: a finished submission, named by its user data.
type CQE struct {
	UserData uint64
	Res      int32
	Flags    uint32
}

// More says the submission goes on after this completion (a multishot
// one); without it, it ended and must be submitted again to go on.
func (c *CQE) More() bool { return c.Flags&cqeFMore != 0 }

// Buffer is the provided buffer the completion's bytes are in, if any.
func (c *CQE) Buffer() (uint16, bool) {
	return uint16(c.Flags >> cqeBufShift), c.Flags&cqeFBuffer != 0
}

// getEventsArg is io_uring_getevents_arg: a wait's timeout.
type getEventsArg struct {
	sigmask   uint64
	sigmaskSz uint32
	minWait   uint32
	ts        uint64
}

// Ring is one io_uring set up for one thread (SINGLE_ISSUER,
// DEFER_TASKRUN: completions are run in the wait that reaps them, not by
// interrupting the thread), its queues mapped in.
type Ring struct {
	fd             int
	mem, sqeMem    []byte
	sqHead, sqTail *uint32
	sqMask         uint32
	sqes           []sqe
	cqHead, cqTail *uint32
	cqMask         uint32
	cqes           []CQE
	sqTailLocal    uint32
	entries        uint32
	extArg         bool
	ts             unix.Timespec
	arg            getEventsArg
}

// New sets up a ring of entries submissions and cq completions (both
// powers of two; cq at least entries).
func New(entries, cq uint32) (*Ring, error) {
	p := params{cqEntries: cq, flags: setupSingleIssuer | setupDeferTaskrun | setupCoopTaskrun | setupCQSize}
	fd, _, e := unix.RawSyscall(unix.SYS_IO_URING_SETUP, uintptr(entries), uintptr(unsafe.Pointer(&p)), 0)
	if e != 0 {
		return nil, fmt.Errorf("io_uring_setup: %w (this kernel or its settings refuse io_uring)", e)
	}
	r := &Ring{fd: int(fd), entries: p.sqEntries, extArg: p.features&featExtArg != 0}
	if p.features&featSingleMmap == 0 {
		unix.Close(r.fd)
		return nil, errors.New("io_uring: the kernel maps its rings separately (before 5.4): not supported here")
	}
	size := max(p.sqOff.array+p.sqEntries*4, p.cqOff.cqes+p.cqEntries*uint32(unsafe.Sizeof(CQE{})))
	mem, err := unix.Mmap(r.fd, offSQRing, int(size), unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED|unix.MAP_POPULATE)
	if err != nil {
		unix.Close(r.fd)
		return nil, os.NewSyscallError("mmap io_uring rings", err)
	}
	sqeMem, err := unix.Mmap(r.fd, offSQEs, int(p.sqEntries)*int(unsafe.Sizeof(sqe{})), unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED|unix.MAP_POPULATE)
	if err != nil {
		unix.Munmap(mem)
		unix.Close(r.fd)
		return nil, os.NewSyscallError("mmap io_uring sqes", err)
	}
	r.mem, r.sqeMem = mem, sqeMem
	base := unsafe.Pointer(&mem[0])
	r.sqHead = (*uint32)(unsafe.Add(base, p.sqOff.head))
	r.sqTail = (*uint32)(unsafe.Add(base, p.sqOff.tail))
	r.sqMask = *(*uint32)(unsafe.Add(base, p.sqOff.ringMask))
	array := unsafe.Slice((*uint32)(unsafe.Add(base, p.sqOff.array)), p.sqEntries)
	for i := range array {
		array[i] = uint32(i) // slot i of the ring is sqe i, always
	}
	r.sqes = unsafe.Slice((*sqe)(unsafe.Pointer(&sqeMem[0])), p.sqEntries)
	r.cqHead = (*uint32)(unsafe.Add(base, p.cqOff.head))
	r.cqTail = (*uint32)(unsafe.Add(base, p.cqOff.tail))
	r.cqMask = *(*uint32)(unsafe.Add(base, p.cqOff.ringMask))
	r.cqes = unsafe.Slice((*CQE)(unsafe.Add(base, p.cqOff.cqes)), p.cqEntries)
	r.sqTailLocal = atomic.LoadUint32(r.sqTail)
	return r, nil
}

// Close tears the ring down, which cancels whatever it still carries.
func (r *Ring) Close() {
	unix.Munmap(r.sqeMem)
	unix.Munmap(r.mem)
	unix.Close(r.fd)
}

// ExtArg says Enter keeps its timeout (Linux 5.11).
func (r *Ring) ExtArg() bool { return r.extArg }

// next is a free submission entry, cleared, entering first when the ring
// is full.
func (r *Ring) next() (*sqe, error) {
	if r.sqTailLocal-atomic.LoadUint32(r.sqHead) >= r.entries {
		if err := r.Enter(0, 0); err != nil {
			return nil, err
		}
	}
	s := &r.sqes[r.sqTailLocal&r.sqMask]
	*s = sqe{}
	r.sqTailLocal++
	return s, nil
}

// Send queues a send of b on socket fd. b must stay as it is until its
// completion. MSG_WAITALL makes the kernel finish a short send itself, so
// a completion says all of b went, or why not; MSG_NOSIGNAL makes a peer
// gone EPIPE, not a SIGPIPE.
func (r *Ring) Send(fd int, b []byte, userData uint64) error {
	s, err := r.next()
	if err != nil {
		return err
	}
	s.opcode, s.fd, s.opFlags = opSend, int32(fd), unix.MSG_NOSIGNAL|unix.MSG_WAITALL
	s.addr, s.len, s.userData = uint64(uintptr(unsafe.Pointer(&b[0]))), uint32(len(b)), userData
	return nil
}

// SendSkipSuccess is Send whose completion comes only when it failed.
func (r *Ring) SendSkipSuccess(fd int, b []byte, userData uint64) error {
	if err := r.Send(fd, b, userData); err != nil {
		return err
	}
	r.sqes[(r.sqTailLocal-1)&r.sqMask].flags = sqeCQESkipSuccess
	return nil
}

// RecvMultishot queues a receive on socket fd that lasts until the kernel
// ends it (a completion without More), each arrival into a buffer of
// group.
func (r *Ring) RecvMultishot(fd int, group uint16, userData uint64) error {
	s, err := r.next()
	if err != nil {
		return err
	}
	s.opcode, s.fd, s.userData = opRecv, int32(fd), userData
	s.ioprio, s.flags, s.bufIndex = recvMultishot, sqeBufferSelect, group
	return nil
}

// PollMultishot queues a poll of fd for events that completes at each
// wake-up of fd's wait queue, until the kernel ends it.
func (r *Ring) PollMultishot(fd int, events uint32, userData uint64) error {
	s, err := r.next()
	if err != nil {
		return err
	}
	s.opcode, s.fd, s.len, s.opFlags, s.userData = opPollAdd, int32(fd), pollAddMulti, events, userData
	return nil
}

// Cancel queues the cancellation of the submission named target; its own
// completion comes only when it failed (nothing to cancel, mostly).
func (r *Ring) Cancel(target, userData uint64) error {
	s, err := r.next()
	if err != nil {
		return err
	}
	s.opcode, s.flags, s.fd, s.addr, s.userData = opAsyncCancel, sqeCQESkipSuccess, -1, target, userData
	return nil
}

// Enter submits what is queued and waits until at least min completions
// are there or timeout ns passed (timeout ≤ 0 with min > 0: no limit;
// without ExtArg the timeout is not kept).
// A wait cut short (EINTR, ETIME, EBUSY: completions to reap first) is no
// error; any other error means the ring is broken.
func (r *Ring) Enter(min uint32, timeout int64) error {
	atomic.StoreUint32(r.sqTail, r.sqTailLocal)
	// Whatever the kernel has not taken yet, a wait cut short included.
	submit := r.sqTailLocal - atomic.LoadUint32(r.sqHead)
	flags, argp, argsz := uintptr(enterGetEvents), uintptr(0), uintptr(0)
	if min > 0 && timeout > 0 && r.extArg {
		r.ts = unix.NsecToTimespec(timeout)
		r.arg = getEventsArg{ts: uint64(uintptr(unsafe.Pointer(&r.ts)))}
		flags |= enterExtArg
		argp, argsz = uintptr(unsafe.Pointer(&r.arg)), unsafe.Sizeof(r.arg)
	}
	_, _, e := unix.RawSyscall6(unix.SYS_IO_URING_ENTER, uintptr(r.fd), uintptr(submit), uintptr(min), flags, argp, argsz)
	switch e {
	case 0, unix.EINTR, unix.ETIME, unix.EAGAIN, unix.EBUSY:
	default:
		return os.NewSyscallError("io_uring_enter", e)
	}
	return nil
}

// Completions are the completions posted and not yet reaped, in order;
// they stay valid until Reaped.
func (r *Ring) Completions() (head, tail uint32) {
	return *r.cqHead, atomic.LoadUint32(r.cqTail)
}

// At is completion i of Completions' range.
func (r *Ring) At(i uint32) *CQE { return &r.cqes[i&r.cqMask] }

// Reaped hands the completions before tail back to the kernel.
func (r *Ring) Reaped(tail uint32) { atomic.StoreUint32(r.cqHead, tail) }
