//go:build !linux

package cli

// preferHugeHeap is a Linux tuning (hugeheap_linux.go); elsewhere the heap
// is left as the runtime maps it.
func preferHugeHeap(int) {}

// dropHugeHeap: see preferHugeHeap.
func dropHugeHeap() {}
