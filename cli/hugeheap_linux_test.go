package cli

import (
	"bufio"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
)

// vmFlags returns the VmFlags smaps lists for the mapping holding addr.
func vmFlags(t *testing.T, addr uintptr) []string {
	t.Helper()
	f, err := os.Open("/proc/self/smaps")
	if err != nil {
		t.Skipf("no smaps to read the advice back from: %v", err)
	}
	defer f.Close()
	in := false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		var lo, hi uintptr
		if n, _ := fmt.Sscanf(line, "%x-%x ", &lo, &hi); n == 2 {
			in = lo <= addr && addr < hi
			continue
		}
		if in && strings.HasPrefix(line, "VmFlags:") {
			return strings.Fields(strings.TrimPrefix(line, "VmFlags:"))
		}
	}
	t.Fatalf("no mapping in /proc/self/smaps holds %#x", addr)
	return nil
}

// The heap set-up ran on asks for huge pages; once dropped, the same range
// asks for small ones, so the run's regrowth does not fault 2 MB at once.
func TestDropHugeHeapWithdrawsTheAdvice(t *testing.T) {
	preferHugeHeap(16 << 20)
	advised.Lock()
	start := advised.start
	advised.Unlock()
	if start == 0 {
		t.Skip("the kernel refused MADV_HUGEPAGE (no transparent huge pages here)")
	}
	if f := vmFlags(t, start); !slices.Contains(f, "hg") {
		t.Fatalf("after preferHugeHeap the range's VmFlags are %v, want hg among them", f)
	}
	dropHugeHeap()
	f := vmFlags(t, start)
	if slices.Contains(f, "hg") || !slices.Contains(f, "nh") {
		t.Fatalf("after dropHugeHeap the range's VmFlags are %v, want nh and no hg", f)
	}
}
