package compile

import (
	"io"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/tressi/tressi/plan"
)

// benchPlan is 100k req/s for 100 s over three weighted endpoints: ten
// million slots, the size `tressi plan` must compile in well under 3 s and
// 200 MB.
//
// Measured on the 2-core development machine (AMD EPYC, shared, so
// figures vary about 2x with load):
//
//	BenchmarkCompile10M     0.15–0.30 s/op (15–30 ns/slot), 3 MB and 95 allocations per op,
//	                        peak RSS of the test binary 15 MB
//	BenchmarkWriteTPlan10M  0.58–0.86 s/op (zstd dominates), peak RSS 48 MB
//	BenchmarkPlan10M        1.1–1.6 s/op (compile + summary + .tplan file of 10M slots),
//	                        peak RSS 48–62 MB, under a load average of 3–5
//
// Compile's one pass spends its time in arrivals, selection and sha256.
func benchPlan(b *testing.B) *plan.Plan {
	return openPlan(b, []plan.Stage{constant(100*time.Second, 100_000)}, 5, 3, 2)
}

func BenchmarkCompile10M(b *testing.B) {
	p := benchPlan(b)
	b.ReportAllocs()
	for b.Loop() {
		s, diags := Compile(p)
		if diags.HasErrors() || s.Count != 10_000_000 {
			b.Fatal(diags, s.Count)
		}
		_ = Summarize(s)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/10e6, "ns/slot")
}

func BenchmarkCompile10MRamp(b *testing.B) {
	p := openPlan(b, []plan.Stage{ramp(100*time.Second, 1_000, 199_000)}, 5, 3, 2)
	p.Endpoints[2].MaxRate = 10_000
	for b.Loop() {
		if _, diags := Compile(p); diags.HasErrors() {
			b.Fatal(diags)
		}
	}
}

func BenchmarkWriteTPlan10M(b *testing.B) {
	p := benchPlan(b)
	s := mustCompile(b, p)
	for b.Loop() {
		if err := WriteTPlan(io.Discard, s, p); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkPlan10M is what `tressi plan -out` does after loading: compile,
// summarise and write the .tplan file.
func BenchmarkPlan10M(b *testing.B) {
	p := benchPlan(b)
	path := filepath.Join(b.TempDir(), "run.tplan")
	for b.Loop() {
		s, diags := Compile(p)
		if diags.HasErrors() {
			b.Fatal(diags)
		}
		_ = Summarize(s).WriteText(io.Discard)
		f, err := os.Create(path)
		if err != nil {
			b.Fatal(err)
		}
		if err := WriteTPlan(f, s, p); err != nil {
			b.Fatal(err)
		}
		if err := f.Close(); err != nil {
			b.Fatal(err)
		}
	}
}

// TestCompileMemoryFlat: compiling a hundred times more slots allocates
// about the same, because slots are streamed and never held.
func TestCompileMemoryFlat(t *testing.T) {
	alloc := func(d time.Duration) uint64 {
		p := openPlan(t, []plan.Stage{constant(d, 10_000)}, 5, 3, 2)
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		mustCompile(t, p)
		runtime.ReadMemStats(&after)
		return after.TotalAlloc - before.TotalAlloc
	}
	small, large := alloc(10*time.Second), alloc(100*time.Second)
	if large > small+1<<20 {
		t.Fatalf("100k slots allocate %d B, 1M slots %d B", small, large)
	}
}
