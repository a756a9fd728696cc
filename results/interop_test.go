package results

import (
	"bytes"
	"encoding/json"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
)

// interopModules finds node_modules with nodejs-polars, which .ci/run
// installs; the test skips where it is missing (a bare `go test`).
func interopModules() string {
	for _, dir := range []string{os.Getenv("TRESSI_INTEROP_NODE_MODULES"), "../.cache/interop/node_modules"} {
		if dir == "" {
			continue
		}
		if _, err := os.Stat(filepath.Join(dir, "nodejs-polars")); err == nil {
			abs, _ := filepath.Abs(dir)
			return abs
		}
	}
	return ""
}

// TestReadBySecondImplementation: what we write must be read by another
// Arrow implementation (polars' Rust reader), zstd batches, dictionaries,
// metadata and all.
func TestReadBySecondImplementation(t *testing.T) {
	mods := interopModules()
	node, err := exec.LookPath("node")
	if mods == "" || err != nil {
		t.Skip("node and nodejs-polars not installed (.ci/run installs them into .cache/interop)")
	}
	// Batches of 40,000 rows (columns of several zstd blocks), 1,000, 100
	// (one Huffman stream, not four) and 1 (too small to compress): every
	// encoding the writer chooses (batchwrite.go, zstdlit.go) is read.
	rows := randomRows(43_101, 11)
	for i := 41_101; i < len(rows); i++ {
		// A last batch whose bytes_in are random 32-bit values: no
		// encoding shrinks them, so the buffer is stored uncompressed
		// (length -1).
		rows[i].BytesIn = uint32(i) * 2654435761
	}
	var buf bytes.Buffer
	w, err := NewWriter(&buf, testMeta, []string{"home", "create", "s.login"})
	if err != nil {
		t.Fatal(err)
	}
	at := 0
	for _, n := range []int{40_000, 1000, 100, 1, 2000} {
		if err := w.Write(rows[at : at+n]); err != nil {
			t.Fatal(err)
		}
		at += n
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "results.arrow")
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(node, "testdata/interop/read.js", path)
	cmd.Env = append(os.Environ(), "NODE_PATH="+mods)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("polars could not read results.arrow: %v\n%s", err, exitStderr(err))
	}
	var got struct {
		Rows       int                `json:"rows"`
		Columns    []string           `json:"columns"`
		SlotSum    float64            `json:"slot_sum"`
		LatencySum float64            `json:"latency_sum"`
		Sums       map[string]float64 `json:"sums"`
		Endpoints  []string           `json:"endpoints"`
		Errors     []string           `json:"errors"`
	}
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	var slotSum, latSum float64
	names := []string{"home", "create", "s.login"}
	for i, r := range rows {
		slotSum += float64(r.Slot)
		latSum += float64(r.Latency)
		if got.Endpoints[i] != names[r.Endpoint] || got.Errors[i] != ErrorNames[r.Error] {
			t.Fatalf("row %d: polars saw endpoint %q error %q, wrote %q %q", i, got.Endpoints[i], got.Errors[i], names[r.Endpoint], ErrorNames[r.Error])
		}
	}
	if got.Rows != len(rows) || got.SlotSum != slotSum || got.LatencySum != latSum {
		t.Fatalf("polars read %d rows (slot sum %v, latency sum %v), wrote %d (%v, %v)", got.Rows, got.SlotSum, got.LatencySum, len(rows), slotSum, latSum)
	}
	want := map[string]float64{}
	for _, r := range rows {
		want["scheduled_ns"] += float64(r.Scheduled)
		want["sent_ns"] += float64(r.Sent)
		want["service_ns"] += float64(r.Service)
		want["status"] += float64(r.Status)
		want["bytes_out"] += float64(r.BytesOut)
		want["bytes_in"] += float64(r.BytesIn)
		want["connect_ns"] += float64(r.Connect)
	}
	if !maps.Equal(got.Sums, want) {
		t.Fatalf("polars column sums %v, wrote %v", got.Sums, want)
	}
	var stored []string
	for _, id := range storedColumns {
		stored = append(stored, storedName(id, deltaNames[id] != ""))
	}
	if !slices.Equal(got.Columns, stored) { // the contract's columns but the derived service_ns, slot and scheduled_ns as deltas, then connect_ns
		t.Fatalf("polars columns %v", got.Columns)
	}
}

func exitStderr(err error) string {
	if ee, ok := err.(*exec.ExitError); ok {
		return string(ee.Stderr)
	}
	return ""
}
