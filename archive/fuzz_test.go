package archive

import (
	"os"
	"path/filepath"
	"testing"
)

// FuzzOpen: whatever bytes an archive holds, Open returns an error or an
// archive whose problems are listed; it never panics nor writes outside
// its directory.
func FuzzOpen(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte{0x28, 0xB5, 0x2F, 0xFD, 0, 0, 0, 0})
	f.Add([]byte("MANIFEST.sha256\x00garbage"))
	f.Fuzz(func(t *testing.T, data []byte) {
		dir := t.TempDir()
		path := filepath.Join(dir, "a.tar.zst")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		out := filepath.Join(dir, "out")
		if err := os.Mkdir(out, 0o755); err != nil {
			t.Fatal(err)
		}
		if o, err := Open(path, out); err == nil && o.RunDir != filepath.Join(out, RunDir) {
			t.Fatalf("run dir %s outside %s", o.RunDir, out)
		}
	})
}

// FuzzManifest: any manifest text is read into problems, never a panic.
func FuzzManifest(f *testing.F) {
	f.Add("0000000000000000000000000000000000000000000000000000000000000000  run/results.arrow\n")
	f.Add("x")
	f.Fuzz(func(t *testing.T, manifest string) {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, ManifestFile), []byte(manifest), 0o644); err != nil {
			t.Fatal(err)
		}
		checkManifest(dir, map[string]string{"run/results.arrow": "ab", ManifestFile: ""})
	})
}
