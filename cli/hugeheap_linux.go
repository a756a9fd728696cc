package cli

import (
	"runtime"
	"syscall"
	"unsafe"
)

// madvHugePage is MADV_HUGEPAGE (the syscall package has no name for it).
const madvHugePage = 14

// hugePage is the size of an x86-64 and arm64 transparent huge page.
const hugePage = 2 << 20

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
		_ = syscall.Madvise(b[start-p:end-p], madvHugePage)
	}
	runtime.KeepAlive(b)
}
