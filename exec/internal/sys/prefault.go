package sys

import (
	"os"
	"unsafe"
)

// pageSize is the kernel's page: the unit a first touch faults in.
var pageSize = os.Getpagesize()

// Prefault writes the zero value into every page of s's backing array
// beyond its length, up to its capacity, so that the kernel maps them now
// rather than at their first use. Fresh memory from the Go heap is only reserved: the first
// write to each of its pages is a page fault, a few microseconds each in a
// virtual machine. Buffers made before instant zero and first written on
// a loop's time would put those faults on the first sends' schedule.
func Prefault[T any](s []T) {
	s = s[len(s):cap(s)]
	var zero T
	size := int(unsafe.Sizeof(zero))
	if len(s) == 0 || size == 0 {
		return
	}
	step := max(1, pageSize/size)
	for i := 0; i < len(s); i += step {
		s[i] = zero
	}
	s[len(s)-1] = zero
}
