package scaleout

import (
	"testing"

	"github.com/tressi/tressi/compile"
	"github.com/tressi/tressi/plan"
)

// The sizing rule of README.md ("Sizing"), which the manifests must meet for
// the example plan: change the plan's rate or the shard count without
// resizing them, and these tests fail.
const (
	// cpuPerRequest is CPU seconds per request per second: twice the 11 µs
	// bench/run measured for the loop engine at 20k req/s (plain HTTP/1.1),
	// for TLS (on the same loop, dearer per request) and noisy neighbours.
	cpuPerRequest = 20e-6
	// baseCores is one core for the recorder, the Go runtime and the epoll
	// loop's spare capacity at any rate.
	baseCores = 1.0
	// minMemoryMiB covers compiling the plan on the pod (13 MB for ten
	// million slots) and the run (28 MiB peak RSS at 20k req/s), with room
	// for the kernel's socket buffers of thousands of connections.
	minMemoryMiB = 256
)

type size struct {
	shardPeak float64 // req/s one shard sends at the plan's peak
	cores     float64
	memoryMiB int64
}

// sizeFor compiles the example plan with its defaults and sizes one of
// shards shards for it.
func sizeFor(t *testing.T, shards int) size {
	t.Helper()
	p, _, diags := plan.Load(plan.Options{Path: "plan"})
	if diags.HasErrors() {
		t.Fatalf("plan/: %v", diags)
	}
	s, cdiags := compile.Compile(p)
	if cdiags.HasErrors() {
		t.Fatalf("plan/: %v", cdiags)
	}
	peak := compile.Summarize(s).PeakRate / float64(shards)
	return size{shardPeak: peak, cores: baseCores + peak*cpuPerRequest, memoryMiB: minMemoryMiB}
}
