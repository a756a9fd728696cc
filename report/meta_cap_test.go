package report

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/tressi/tressi/results"
)

// A run directory is untrusted input: a meta.json holding a 50 MB string
// must not make the report allocate in proportion to it.
func TestHugeMetaJSONIsLeftOut(t *testing.T) {
	dir := writeRows(t, results.Meta{PlanName: "p", ScheduleHash: "h"}, []string{"home"}, stoppedRows(100, 100, 0), "")
	huge := `{"exit_status": "ok", "hostname": "` + strings.Repeat("x", 50<<20) + `"}`
	if err := os.WriteFile(filepath.Join(dir, MetaFile), []byte(huge), 0o644); err != nil {
		t.Fatal(err)
	}
	huge = ""
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	rep, err := Build([]string{dir}, Options{})
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("allocated %d MiB", (after.TotalAlloc-before.TotalAlloc)>>20)
	if grew := after.TotalAlloc - before.TotalAlloc; grew > 32<<20 {
		t.Errorf("the report allocated %d MiB for a 50 MB meta.json", grew>>20)
	}
	if !strings.Contains(strings.Join(rep.Warnings, "\n"), "meta.json") || rep.Run.Environment != nil {
		t.Errorf("warnings %q, environment kept: %v", rep.Warnings, rep.Run.Environment != nil)
	}
}
