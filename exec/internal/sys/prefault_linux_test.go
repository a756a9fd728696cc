package sys

import (
	"testing"
	"unsafe"

	"golang.org/x/sys/unix"
)

// notResident counts the pages of b the kernel has not mapped yet.
func notResident(t *testing.T, b []byte) int {
	t.Helper()
	start := uintptr(unsafe.Pointer(&b[0])) &^ uintptr(pageSize-1)
	end := uintptr(unsafe.Pointer(&b[len(b)-1])) + 1
	vec := make([]byte, (end-start+uintptr(pageSize)-1)/uintptr(pageSize))
	_, _, e := unix.Syscall(unix.SYS_MINCORE, start, end-start, uintptr(unsafe.Pointer(&vec[0])))
	if e != 0 {
		t.Fatalf("mincore: %v", e)
	}
	n := 0
	for _, v := range vec {
		if v&1 == 0 {
			n++
		}
	}
	return n
}

// A large fresh allocation is only reserved; after Prefault every page of
// it is mapped, so its first use takes no page fault.
func TestPrefaultMapsEveryPage(t *testing.T) {
	type row struct{ a, b, c, d, e, f, g, h int64 } // 64 bytes, as a results row
	rows := make([]row, 0, 64<<10)                  // 4 MiB
	b := unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(rows))), cap(rows)*int(unsafe.Sizeof(row{})))
	if notResident(t, b) == 0 {
		t.Skip("the allocation came mapped already (reused heap memory): nothing to show")
	}
	Prefault(rows)
	if n := notResident(t, b); n != 0 {
		t.Fatalf("%d pages of %d still unmapped after Prefault", n, len(b)/pageSize)
	}
	if len(rows) != 0 {
		t.Fatalf("Prefault changed the slice's length to %d", len(rows))
	}
}

// Prefault leaves the slice's values in place (it writes beyond its
// length only) and takes empty and zero-size slices.
func TestPrefaultEdges(t *testing.T) {
	Prefault([]int64(nil))
	Prefault(make([]struct{}, 10))
	b := make([]byte, 3, 10000)
	copy(b, "abc")
	Prefault(b)
	if string(b) != "abc" {
		t.Fatalf("Prefault changed the slice's contents: %q", b)
	}
}
