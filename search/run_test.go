package search_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"testing/fstest"
	"time"

	"github.com/tressi/tressi/compile"
	"github.com/tressi/tressi/exec"
	"github.com/tressi/tressi/plan"
	"github.com/tressi/tressi/report"
	"github.com/tressi/tressi/results"
	"github.com/tressi/tressi/search"
	"github.com/tressi/tressi/testserver"
)

// A small real search against the built-in queue (10ms service: capacity
// 100 req/s). Timing on a busy machine decides where the knee lands, so
// the test checks only what no load can change: the queue's virtual time
// makes any probe at 1.5× capacity fail, every probe's rows land in the run
// directory tagged with their probe, and a report recomputes each probe's
// figures from those rows exactly as the live judge had them.
func TestSearchAgainstQueue(t *testing.T) {
	_, addr, err := testserver.StartLoopback(t)
	if err != nil {
		t.Fatal(err)
	}
	src := fmt.Sprintf(`
target "q" {
  url         = "http://%s"
  connections = 256
  timeout     = "2s"
}
endpoint "work" {
  path = "/queue?service=10ms"
}
load {
  seed = 3
  search {
    from       = 40
    to         = 320
    precision  = 0.2
    max_probes = 6
    warmup     = "300ms"
    hold       = "1200ms"
    cooldown   = "100ms"
  }
}
thresholds {
  p99 = "200ms"
}
`, addr)
	p, _, diags := plan.Load(plan.Options{Path: "queue.hcl", FS: fstest.MapFS{"queue.hcl": {Data: []byte(src)}}})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	dir := filepath.Join(t.TempDir(), "run")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	rec, err := search.Run(ctx, p, search.Options{Exec: exec.Options{OutDir: dir, Grace: time.Second}})
	if err != nil {
		t.Fatal(err)
	}
	if n := len(rec.Probes); n == 0 || n > 6 {
		t.Fatalf("%d probes, want 1 to 6", n)
	}
	for _, pr := range rec.Probes {
		if pr.Offered >= 150 && pr.Passed() {
			t.Errorf("probe %d at %g req/s passed: above 1.5× the queue's capacity (100 req/s) its backlog must break p99", pr.Index, pr.Offered)
		}
	}
	if rec.MinFailingRate == nil {
		t.Fatalf("no probe failed, yet the search went up to %g: %+v", rec.To, rec.Probes)
	}

	// Every probe in the one run directory, its rows tagged with the probe.
	for _, pr := range rec.Probes {
		r, err := results.Open(filepath.Join(dir, pr.Dir, exec.ResultsFile))
		if err != nil {
			t.Fatal(err)
		}
		meta, err := search.ParseProbeMeta(r.Meta.Probe)
		r.Close()
		if err != nil || meta.Index != pr.Index || meta.Value != pr.Offered || meta.WarmupNs != int64(300*time.Millisecond) {
			t.Fatalf("probe %d metadata %+v (%v)", pr.Index, meta, err)
		}
	}
	saved, err := search.ReadRecord(dir)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(saved.Probes, rec.Probes) {
		t.Fatalf("search.json differs from the search's record")
	}
	th := compile.Thresholds(p.Thresholds)
	rep, err := report.BuildSearch(dir, &th)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Warnings) > 0 {
		t.Fatalf("report warnings: %v", rep.Warnings)
	}
	if !reflect.DeepEqual(rep.Search.Probes, rec.Probes) {
		t.Fatalf("figures recomputed from the rows differ from the live ones:\n%+v\n%+v", rep.Search.Probes, rec.Probes)
	}
	if _, err := os.Stat(filepath.Join(dir, search.File)); err != nil {
		t.Fatal(err)
	}
}
