package compile

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/tressi/tressi/plan"
)

// A plan with a million-row CSV (29 MB) makes a .tplan that apply must
// read back: whatever the writer writes, the reader reads. The data and
// sources go in batches, not in the schema message, whose size readers cap.
// Under the race detector (a minute for the million rows on a busy
// machine) 350k rows still make several batches of chunks.
func TestTPlanLargeDataRoundTrips(t *testing.T) {
	if testing.Short() {
		t.Skip("writes and reads a 30 MB .tplan")
	}
	rows := 1_000_000
	if raceEnabled {
		rows = 350_000
	}
	var csv strings.Builder
	csv.WriteString("username,password\n")
	for i := range rows {
		fmt.Fprintf(&csv, "user%07d,pw-%014d\n", i, i*7919)
	}
	if min := rows * 29; csv.Len() < min || csv.Len() <= blobBatchRows*blobChunk {
		t.Fatalf("the CSV is %d bytes, want at least %d and more than a batch of chunks", csv.Len(), min)
	}
	fsys := fstest.MapFS{
		"users.csv": {Data: []byte(csv.String())},
		"p.hcl": {Data: []byte(`
target "t" {
  url = "http://127.0.0.1:1"
}
data "users" {
  csv = "users.csv"
}
scenario "login" {
  step "login" {
    method = "POST"
    path   = "/login"
    body   = jsonencode({ user = row.username, password = row.password })
  }
}
load {
  stage {
    duration = "10s"
    rate     = 100
  }
}
`)},
	}
	s := compileFS(t, fsys)
	p := loadFS(t, fsys)
	path := filepath.Join(t.TempDir(), "big.tplan")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := WriteTPlan(f, s, p); err != nil {
		t.Fatal(err)
	}
	f.Close()
	f, err = os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	tp, err := ReadTPlan(f)
	if err != nil {
		st, _ := f.Stat()
		t.Fatalf("reading back a %d-byte .tplan: %v", st.Size(), err)
	}
	got := tp.Schedule
	if got.Hash != s.Hash || len(got.Data) != 1 || len(got.Data[0].Rows) != rows ||
		!reflect.DeepEqual(got.Data[0].Rows[rows-1], s.Data[0].Rows[rows-1]) {
		t.Errorf("hash %s (want %s), data %d blocks", got.Hash, s.Hash, len(got.Data))
	}
	if !reflect.DeepEqual(tp.Sources, p.Sources) {
		t.Errorf("sources differ after the round trip")
	}
}

// loadFS loads p.hcl from fsys, failing on any error.
func loadFS(t *testing.T, fsys fstest.MapFS) *plan.Plan {
	t.Helper()
	p, _, diags := plan.Load(plan.Options{Path: "p.hcl", FS: fsys})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	return p
}
