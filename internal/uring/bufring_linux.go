package uring

import (
	"fmt"
	"os"
	"sync/atomic"
	"unsafe"

	"golang.org/x/sys/unix"
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

// BufRing is a ring of provided buffers: the kernel takes one per arrival
// of a receive that selects from its group and names it in the
// completion; the owner gives it back once read.
type BufRing struct {
	r     *Ring
	group uint16
	mem   []byte // the ring's entries, page-aligned
	bufs  []ringBuf
	mask  uint16
	local uint16
	size  int
	data  []byte
}

// NewBufRing registers entries buffers (a power of two) of size bytes
// each as group on r, every one given.
func NewBufRing(r *Ring, group uint16, entries, size int) (*BufRing, error) {
	mem, err := unix.Mmap(-1, 0, entries*int(unsafe.Sizeof(ringBuf{})), unix.PROT_READ|unix.PROT_WRITE, unix.MAP_ANON|unix.MAP_PRIVATE)
	if err != nil {
		return nil, os.NewSyscallError("mmap buffer ring", err)
	}
	b := &BufRing{r: r, group: group, mem: mem, mask: uint16(entries - 1), size: size, data: make([]byte, entries*size)}
	b.bufs = unsafe.Slice((*ringBuf)(unsafe.Pointer(&mem[0])), entries)
	reg := bufReg{ringAddr: uint64(uintptr(unsafe.Pointer(&mem[0]))), ringEntries: uint32(entries), bgid: group}
	if _, _, e := unix.RawSyscall6(unix.SYS_IO_URING_REGISTER, uintptr(r.fd), registerPbufRing, uintptr(unsafe.Pointer(&reg)), 1, 0, 0); e != 0 {
		unix.Munmap(mem)
		return nil, fmt.Errorf("io_uring_register PBUF_RING: %w (provided-buffer rings need Linux 5.19)", e)
	}
	for i := range entries {
		b.Give(uint16(i))
	}
	b.Publish()
	return b, nil
}

// Bytes is buffer bid's first n bytes.
func (b *BufRing) Bytes(bid uint16, n int) []byte {
	off := int(bid) * b.size
	return b.data[off : off+n : off+b.size]
}

// Give puts buffer bid back in the ring; Publish makes what was given
// visible to the kernel.
func (b *BufRing) Give(bid uint16) {
	e := &b.bufs[b.local&b.mask]
	e.addr, e.len, e.bid = uint64(uintptr(unsafe.Pointer(&b.data[int(bid)*b.size]))), uint32(b.size), bid
	b.local++
}

func (b *BufRing) Publish() {
	// The tail is the high half of the 32-bit word whose low half is the
	// first entry's bid: one 32-bit store, as Go has no 16-bit atomic.
	word := (*uint32)(unsafe.Pointer(&b.bufs[0].bid))
	atomic.StoreUint32(word, uint32(b.local)<<16|uint32(b.bufs[0].bid))
}

// Close unregisters the buffers and unmaps the ring.
func (b *BufRing) Close() {
	reg := bufReg{bgid: b.group}
	unix.RawSyscall6(unix.SYS_IO_URING_REGISTER, uintptr(b.r.fd), unregisterPbufRing, uintptr(unsafe.Pointer(&reg)), 1, 0, 0)
	unix.Munmap(b.mem)
}
