package compile

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/tressi/tressi/plan"
)

// TestTPlanReadBySecondImplementation: a .tplan must be readable by another
// Arrow implementation (polars' Rust reader), as results files are; .ci/run
// installs nodejs-polars into .cache/interop and the test skips without it.
func TestTPlanReadBySecondImplementation(t *testing.T) {
	mods := ""
	for _, dir := range []string{os.Getenv("TRESSI_INTEROP_NODE_MODULES"), "../.cache/interop/node_modules"} {
		if dir == "" {
			continue
		}
		if _, err := os.Stat(filepath.Join(dir, "nodejs-polars")); err == nil {
			mods, _ = filepath.Abs(dir)
			break
		}
	}
	node, err := exec.LookPath("node")
	if mods == "" || err != nil {
		t.Skip("node and nodejs-polars not installed (.ci/run installs them into .cache/interop)")
	}
	// Several batches, the last one short.
	p := openPlan(t, []plan.Stage{ramp(3*time.Second, 20000, 40000)}, 3, 1)
	s := mustCompile(t, p)
	path := filepath.Join(t.TempDir(), "run.tplan")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := WriteTPlan(f, s, p); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(node, "testdata/interop/read_tplan.js", path)
	cmd.Env = append(os.Environ(), "NODE_PATH="+mods)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("polars could not read the tplan: %v\n%s", err, out)
	}
	var got struct {
		Rows     int64    `json:"rows"`
		Columns  []string `json:"columns"`
		DueSum   float64  `json:"due_sum"`
		EntrySum float64  `json:"entry_sum"`
	}
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	var dueSum, entrySum float64
	for _, sl := range allSlots(s) {
		dueSum += float64(sl.Due())
		entrySum += float64(sl.Entry())
	}
	if got.Rows != s.Count || len(got.Columns) != 2 || got.Columns[0] != "due_ns" || got.Columns[1] != "entry" {
		t.Fatalf("polars saw %d rows, columns %v; wrote %d", got.Rows, got.Columns, s.Count)
	}
	if got.EntrySum != entrySum || relDiff(got.DueSum, dueSum) > 1e-12 {
		t.Fatalf("polars sums due %v entry %v, wrote %v %v", got.DueSum, got.EntrySum, dueSum, entrySum)
	}
}

func relDiff(a, b float64) float64 {
	d := a - b
	if d < 0 {
		d = -d
	}
	if b == 0 {
		return d
	}
	return d / b
}
