package plan

import (
	"os"
	"path/filepath"
	"testing"
	"testing/fstest"
)

// FuzzLoad feeds arbitrary bytes as a plan file (in both syntaxes): loading
// must never panic, whatever the input.
func FuzzLoad(f *testing.F) {
	seeds, _ := filepath.Glob("testdata/*/*.hcl")
	for _, path := range seeds {
		if b, err := os.ReadFile(path); err == nil {
			f.Add(b, false)
		}
	}
	if b, err := os.ReadFile("testdata/equiv/plan.hcl.json"); err == nil {
		f.Add(b, true)
	}
	f.Add([]byte(`{"endpoint": {"e": {"body": "${jsonencode(row)}"}}}`), true)
	f.Fuzz(func(t *testing.T, src []byte, asJSON bool) {
		name := "p.hcl"
		if asJSON {
			name = "p.hcl.json"
		}
		fsys := fstest.MapFS{
			name:        {Data: src},
			"users.csv": {Data: []byte("username,password\na,b\n")},
		}
		p, files, diags := Load(Options{Path: name, FS: fsys})
		if (p == nil) != diags.HasErrors() {
			t.Fatalf("plan %v with errors=%v", p != nil, diags.HasErrors())
		}
		if files == nil {
			t.Fatal("files must always be returned")
		}
	})
}
