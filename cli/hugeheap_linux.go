package cli

import (
	"runtime"
	"sync"
	"syscall"
	"unsafe"
)

// madvHugePage and madvNoHugePage are MADV_HUGEPAGE and MADV_NOHUGEPAGE
// (the syscall package has no names for them).
const (
	madvHugePage   = 14
	madvNoHugePage = 15
)

// hugePage is the size of an x86-64 and arm64 transparent huge page.
const hugePage = 2 << 20

// advised is the heap range preferHugeHeap advised, for dropHugeHeap.
var advised struct {
	sync.Mutex
	start, end uintptr
}

// preferHugeHeap asks the kernel to back the next n bytes the Go heap
// grows into with transparent huge pages, where it offers them only on
// request (/sys/kernel/mm/transparent_hugepage/enabled: madvise, Debian's
// default). The runtime maps its heap without that request, so a reader
// of a results file, or a run's set-up, first-touches every page of its
// buffers one fault at a time; on a virtual machine each fault is an exit
// to the hypervisor.
// A block of n bytes is allocated, advised and dropped: the page
// allocator, lowest address first, hands the same range out again, and
// the advice stays with the mapping when the scavenger returns pages.
func preferHugeHeap(n int) {
	b := make([]byte, n)
	p := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	start := (p + hugePage - 1) &^ (hugePage - 1)
	end := (p + uintptr(n)) &^ (hugePage - 1)
	if end > start {
		// An error (a kernel without THP) leaves the heap as it was.
		if syscall.Madvise(b[start-p:end-p], madvHugePage) == nil {
			advised.Lock()
			advised.start, advised.end = start, end
			advised.Unlock()
		}
	}
	runtime.KeepAlive(b)
}

// dropHugeHeap withdraws preferHugeHeap's advice once a run's set-up is
// done and its heap returned to the OS: what the run then allocates
// again is faulted in 4 KiB pages. A huge page's fault zeroes 2 MB in the
// kernel at once, and on one core the loop's due sends waited behind the
// recorder's (bench/README.md, session 20).
// The pages already huge stay so; the range stays mapped (the Go heap
// never unmaps), so the advice can be changed at any time.
func dropHugeHeap() {
	advised.Lock()
	defer advised.Unlock()
	if advised.end <= advised.start {
		return
	}
	// By address: the range is heap the runtime may have handed out again,
	// which no slice of ours describes.
	_, _, _ = syscall.Syscall(syscall.SYS_MADVISE, advised.start, advised.end-advised.start, madvNoHugePage)
	advised.start, advised.end = 0, 0
}
