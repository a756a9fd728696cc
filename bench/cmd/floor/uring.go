package main

import (
	"errors"
	"fmt"
	"os"
	"sync/atomic"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// The io_uring floor: the closed model's loop with its system calls
// replaced by one io_uring_enter per wake-up, which submits every send
// queued since the last one and waits for the next completion. Each
// connection has one multishot receive for the whole run, filling buffers
// the loop provides in a ring (a completion per arrival, each naming its
// buffer, handed back once read); a send's completion is skipped on
// success (IOSQE_CQE_SKIP_SUCCESS). So a request costs one submission and
// one completion, and the waits are shared by whatever completes together.
// The ring is set up for one thread (SINGLE_ISSUER, DEFER_TASKRUN:
// completions are run in the wait that reaps them, not by interrupting the
// loop). What this floor costs beside the epoll one says what an io_uring
// backend could win.

// The kernel's io_uring ABI (include/uapi/linux/io_uring.h).
const (
	ioringOffSQRing = 0
	ioringOffSQEs   = 0x10000000

	ioringSetupCoopTaskrun  = 1 << 8
	ioringSetupSingleIssuer = 1 << 12
	ioringSetupDeferTaskrun = 1 << 13
	ioringFeatSingleMmap    = 1 << 0
	ioringEnterGetEvents    = 1 << 0

	ioringOpSend        = 26
	ioringOpRecv        = 27
	iosqeBufferSelect   = 1 << 5
	iosqeCQESkipSuccess = 1 << 6
	ioringRecvMultishot = 1 << 1
	ioringCQEFMore      = 1 << 1
	ioringCQEBufShift   = 16

	ioringRegisterPbufRing = 22
	bufGroup               = 1
	bufSize                = 512
)

// bufReg is io_uring_buf_reg: the provided-buffer ring to register.
type bufReg struct {
	ringAddr    uint64
	ringEntries uint32
	bgid        uint16
	flags       uint16
	resv        [3]uint64
}

// ringBuf is io_uring_buf, an entry of the provided-buffer ring; the first
// entry's last 2 bytes are the ring's tail.
type ringBuf struct {
	addr uint64
	len  uint32
	bid  uint16
	resv uint16
}

// bufRing is the loop's provided buffers: the kernel takes one per arrival
// and names it in the completion; the loop hands it back once read.
type bufRing struct {
	mem   []byte // the ring's entries, page-aligned
	bufs  []ringBuf
	mask  uint16
	local uint16
	data  []byte
}

func newBufRing(r *ring, entries int) (*bufRing, error) {
	mem, err := unix.Mmap(-1, 0, entries*int(unsafe.Sizeof(ringBuf{})), unix.PROT_READ|unix.PROT_WRITE, unix.MAP_ANON|unix.MAP_PRIVATE)
	if err != nil {
		return nil, os.NewSyscallError("mmap buffer ring", err)
	}
	b := &bufRing{mem: mem, mask: uint16(entries - 1), data: make([]byte, entries*bufSize)}
	b.bufs = unsafe.Slice((*ringBuf)(unsafe.Pointer(&mem[0])), entries)
	reg := bufReg{ringAddr: uint64(uintptr(unsafe.Pointer(&mem[0]))), ringEntries: uint32(entries), bgid: bufGroup}
	if _, _, e := unix.RawSyscall6(unix.SYS_IO_URING_REGISTER, uintptr(r.fd), ioringRegisterPbufRing, uintptr(unsafe.Pointer(&reg)), 1, 0, 0); e != 0 {
		unix.Munmap(mem)
		return nil, fmt.Errorf("io_uring_register PBUF_RING: %w (provided-buffer rings need Linux 5.19)", e)
	}
	for i := range entries {
		b.give(uint16(i))
	}
	b.publish()
	return b, nil
}

// give puts buffer bid back in the ring; publish makes what was given
// visible to the kernel.
func (b *bufRing) give(bid uint16) {
	e := &b.bufs[b.local&b.mask]
	e.addr, e.len, e.bid = uint64(uintptr(unsafe.Pointer(&b.data[int(bid)*bufSize]))), bufSize, bid
	b.local++
}

func (b *bufRing) publish() {
	// The tail is the high half of the 32-bit word whose low half is the
	// first entry's bid: one 32-bit store, as Go has no 16-bit atomic.
	word := (*uint32)(unsafe.Pointer(&b.bufs[0].bid))
	atomic.StoreUint32(word, uint32(b.local)<<16|uint32(b.bufs[0].bid))
}

func (b *bufRing) close() { unix.Munmap(b.mem) }

type sqringOffsets struct {
	head, tail, ringMask, ringEntries, flags, dropped, array, resv1 uint32
	userAddr                                                        uint64
}

type cqringOffsets struct {
	head, tail, ringMask, ringEntries, overflow, cqes, flags, resv1 uint32
	userAddr                                                        uint64
}

type uringParams struct {
	sqEntries, cqEntries, flags, sqThreadCPU, sqThreadIdle, features, wqFd uint32
	resv                                                                   [3]uint32
	sqOff                                                                  sqringOffsets
	cqOff                                                                  cqringOffsets
}

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

type cqe struct {
	userData uint64
	res      int32
	flags    uint32
}

// ring is one io_uring: its submission and completion rings mapped in.
type ring struct {
	fd             int
	mem, sqeMem    []byte
	sqHead, sqTail *uint32
	sqMask         uint32
	sqes           []sqe
	cqHead, cqTail *uint32
	cqMask         uint32
	cqes           []cqe
	pending        uint32 // submissions queued since the last enter
	sqTailLocal    uint32
	entries        uint32
}

func newRing(entries uint32) (*ring, error) {
	var p uringParams
	p.flags = ioringSetupSingleIssuer | ioringSetupDeferTaskrun | ioringSetupCoopTaskrun
	fd, _, e := unix.RawSyscall(unix.SYS_IO_URING_SETUP, uintptr(entries), uintptr(unsafe.Pointer(&p)), 0)
	if e != 0 {
		return nil, fmt.Errorf("io_uring_setup: %w (this kernel or its settings refuse io_uring)", e)
	}
	r := &ring{fd: int(fd), entries: p.sqEntries}
	if p.features&ioringFeatSingleMmap == 0 {
		unix.Close(r.fd)
		return nil, errors.New("io_uring: the kernel maps its rings separately (before 5.4): not supported here")
	}
	size := max(p.sqOff.array+p.sqEntries*4, p.cqOff.cqes+p.cqEntries*uint32(unsafe.Sizeof(cqe{})))
	mem, err := unix.Mmap(r.fd, ioringOffSQRing, int(size), unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED|unix.MAP_POPULATE)
	if err != nil {
		unix.Close(r.fd)
		return nil, os.NewSyscallError("mmap io_uring rings", err)
	}
	sqeMem, err := unix.Mmap(r.fd, ioringOffSQEs, int(p.sqEntries)*int(unsafe.Sizeof(sqe{})), unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED|unix.MAP_POPULATE)
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
	r.cqes = unsafe.Slice((*cqe)(unsafe.Add(base, p.cqOff.cqes)), p.cqEntries)
	r.sqTailLocal = atomic.LoadUint32(r.sqTail)
	return r, nil
}

func (r *ring) close() {
	unix.Munmap(r.sqeMem)
	unix.Munmap(r.mem)
	unix.Close(r.fd)
}

// next is a free submission entry, cleared; nil when the ring is full
// (the caller enters first).
func (r *ring) next() *sqe {
	if r.sqTailLocal-atomic.LoadUint32(r.sqHead) >= r.entries {
		return nil
	}
	s := &r.sqes[r.sqTailLocal&r.sqMask]
	*s = sqe{}
	r.sqTailLocal++
	r.pending++
	return s
}

// enter submits what is queued and, with wait, blocks until at least one
// completion is there. EINTR is an empty wait.
func (r *ring) enter(wait bool) error {
	atomic.StoreUint32(r.sqTail, r.sqTailLocal)
	var flags, minComplete uintptr
	if wait {
		flags, minComplete = ioringEnterGetEvents, 1
	}
	_, _, e := unix.RawSyscall6(unix.SYS_IO_URING_ENTER, uintptr(r.fd), uintptr(r.pending), minComplete, flags, 0, 0)
	if e != 0 && e != unix.EINTR && e != unix.EAGAIN && e != unix.EBUSY {
		return os.NewSyscallError("io_uring_enter", e)
	}
	r.pending = 0
	return nil
}

// closedUring runs every connection back to back for d through the ring.
func (l *loop) closedUring(d time.Duration) error {
	r, err := newRing(uint32(min(4096, max(16, 2*len(l.conns)))))
	if err != nil {
		return err
	}
	defer r.close()
	nbuf := 16
	for nbuf < 2*len(l.conns) && nbuf < 1<<15 {
		nbuf *= 2
	}
	bufs, err := newBufRing(r, nbuf)
	if err != nil {
		return err
	}
	defer bufs.close()
	// slot is a free submission entry, entering first when the ring is full.
	slot := func() (*sqe, error) {
		if s := r.next(); s != nil {
			return s, nil
		}
		if err := r.enter(false); err != nil {
			return nil, err
		}
		return r.next(), nil
	}
	send := func(i int) error {
		s, err := slot()
		if err != nil {
			return err
		}
		c := &l.conns[i]
		s.opcode, s.flags, s.fd, s.opFlags = ioringOpSend, iosqeCQESkipSuccess, int32(c.fd), unix.MSG_NOSIGNAL
		s.addr, s.len, s.userData = uint64(uintptr(unsafe.Pointer(&l.request[0]))), uint32(len(l.request)), uint64(i)|1<<63
		c.busy, c.got = true, 0
		l.busy++
		return nil
	}
	// receive arms connection i's multishot receive: it lasts until the
	// kernel ends it (a completion without IORING_CQE_F_MORE).
	receive := func(i int) error {
		s, err := slot()
		if err != nil {
			return err
		}
		s.opcode, s.fd, s.userData = ioringOpRecv, int32(l.conns[i].fd), uint64(i)
		s.ioprio, s.flags, s.bufIndex = ioringRecvMultishot, iosqeBufferSelect, bufGroup
		return nil
	}
	for i := range l.conns {
		if err := unix.SetNonblock(l.conns[i].fd, false); err != nil {
			return err
		}
		if err := receive(i); err != nil {
			return err
		}
		if err := send(i); err != nil {
			return err
		}
	}
	deadline := time.Now().Add(d)
	for {
		if err := r.enter(true); err != nil {
			return err
		}
		over := time.Now().After(deadline)
		head, tail := *r.cqHead, atomic.LoadUint32(r.cqTail)
		for ; head != tail; head++ {
			ev := r.cqes[head&r.cqMask]
			if ev.userData&(1<<63) != 0 {
				return fmt.Errorf("send: %v", unix.Errno(-ev.res)) // only a failed send completes
			}
			i := int(ev.userData)
			c := &l.conns[i]
			nobufs := ev.res == -int32(unix.ENOBUFS)
			if ev.flags&ioringCQEFMore == 0 && (ev.res > 0 || nobufs) {
				// The kernel ended the receive (every buffer taken, say):
				// armed again, it runs once the buffers read below are back.
				if err := receive(i); err != nil {
					return err
				}
			}
			if nobufs {
				continue
			}
			if ev.res <= 0 {
				return fmt.Errorf("the target closed a connection (recv: %d): give it keep-alive without a request limit", ev.res)
			}
			bufs.give(uint16(ev.flags >> ioringCQEBufShift)) // the bytes are counted, not read
			c.got += int(ev.res)
			if c.got < l.respLen {
				continue
			}
			if c.got > l.respLen {
				return fmt.Errorf("%d bytes where a response is %d: responses are not all one size", c.got, l.respLen)
			}
			l.done++
			c.busy, c.got = false, 0
			l.busy--
			if !over {
				if err := send(i); err != nil {
					return err
				}
			}
		}
		atomic.StoreUint32(r.cqHead, head)
		bufs.publish()
		if over && l.busy == 0 {
			return nil
		}
	}
}
