package compile

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/ipc"

	"github.com/tressi/tressi/plan"
)

// goldenPlan loads and compiles testdata/tplan/plan.hcl, a plan touching
// every part of a .tplan header.
func goldenPlan(t *testing.T) (*plan.Plan, *Schedule) {
	t.Helper()
	p, _, diags := plan.Load(plan.Options{Path: filepath.Join("testdata", "tplan", "plan.hcl")})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	return p, mustCompile(t, p)
}

// tplanHeaderJSON is the JSON header of a .tplan stream, indented.
func tplanHeaderJSON(t *testing.T, b []byte) []byte {
	t.Helper()
	rd, err := ipc.NewReader(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	defer rd.Release()
	md := rd.Schema().Metadata()
	i := md.FindKey(TPlanMetadataKey)
	if i < 0 {
		t.Fatal("no header")
	}
	var out bytes.Buffer
	if err := json.Indent(&out, []byte(md.Values()[i]), "", "  "); err != nil {
		t.Fatal(err)
	}
	return append(out.Bytes(), '\n')
}

// The .tplan header's JSON is pinned: it is written through wire structs
// with explicit JSON names, so renaming a Go field of the schedule cannot
// change the file format. A deliberate format change updates the golden
// file (-update) and says so in TPlanFormat.
func TestTPlanHeaderGolden(t *testing.T) {
	p, s := goldenPlan(t)
	var buf bytes.Buffer
	if err := WriteTPlan(&buf, s, p); err != nil {
		t.Fatal(err)
	}
	got := tplanHeaderJSON(t, buf.Bytes())
	path := filepath.Join("testdata", "tplan", "header.golden.json")
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("the .tplan header changed (go test ./compile -run TestTPlanHeaderGolden -update if on purpose):\n%s", got)
	}
}

// A .tplan written by an earlier tressi (commit 8efbf8c, whose header also
// held each threshold block's source range) reads back as the schedule
// the same plan compiles to today.
func TestTPlanReadsOldFiles(t *testing.T) {
	_, s := goldenPlan(t)
	f, err := os.Open(filepath.Join("testdata", "tplan", "main-8efbf8c.tplan"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	tp, err := ReadTPlan(f)
	if err != nil {
		t.Fatal(err)
	}
	got := tp.Schedule
	if got.Hash != s.Hash || got.Count != s.Count || got.Model != s.Model || got.Seed != s.Seed {
		t.Fatalf("header differs: %s/%d vs %s/%d", got.Hash, got.Count, s.Hash, s.Count)
	}
	for _, f := range []struct {
		name string
		a, b any
	}{
		{"targets", got.Targets, s.Targets}, {"requests", got.Requests, s.Requests}, {"entries", got.Entries, s.Entries},
		{"data", got.Data, s.Data}, {"users", got.Users, s.Users}, {"thresholds", got.Thresholds, s.Thresholds},
	} {
		if !reflect.DeepEqual(f.a, f.b) {
			t.Fatalf("%s differ:\n%+v\n%+v", f.name, f.a, f.b)
		}
	}
	if !reflect.DeepEqual(allSlots(got), allSlots(s)) {
		t.Fatal("slots differ")
	}
}
