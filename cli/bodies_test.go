package cli

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/tressi/tressi/exec"
	"github.com/tressi/tressi/results"
	"github.com/tressi/tressi/testserver"
)

// A multipart upload with a binary file, a binary body from a file and a
// form, compiled into a .tplan whose files are then deleted, run from the
// .tplan against the built-in target's /upload, which parses each body
// with Go's mime/multipart and says what arrived: every byte of the files,
// the fields in their order, the form's values unescaped.
func TestBodiesArriveWholeFromATPlan(t *testing.T) {
	_, addr := startTarget(t, testserver.Options{})

	dir := t.TempDir()
	png := make([]byte, 70_000) // larger than a sample, with every byte value
	for i := range png {
		png[i] = byte(i * 7)
	}
	sum := sha256.Sum256(png)
	pngSum := hex.EncodeToString(sum[:])
	if err := os.WriteFile(filepath.Join(dir, "cat.png"), png, 0o644); err != nil {
		t.Fatal(err)
	}
	planPath := filepath.Join(dir, "bodies.hcl")
	if err := os.WriteFile(planPath, []byte(fmt.Sprintf(`
target "t" {
  url = "http://%s"
}
scenario "s" {
  step "multipart" {
    path = "/upload"
    multipart {
      field "title" { value = "cat #${seq}" }
      file "photo" {
        path         = "cat.png"
        content_type = "image/png"
      }
      field "title" { value = "second" }
    }
  }
  step "binary" {
    method  = "PUT"
    path    = "/upload"
    headers = { "Content-Type" = "image/png" }
    body    = file("cat.png")
  }
  step "form" {
    path = "/upload"
    form = { q = "a b&c", n = "${seq}" }
  }
}
load {
  stage {
    duration = "1s"
    rate     = 1
  }
}
`, addr)), 0o644); err != nil {
		t.Fatal(err)
	}
	tplan := filepath.Join(dir, "bodies.tplan")
	if code, _, stderr := run(t, nil, "plan", planPath, "--out", tplan); code != 0 {
		t.Fatalf("plan: exit %d: %s", code, stderr)
	}
	if err := os.Remove(filepath.Join(dir, "cat.png")); err != nil {
		t.Fatal(err)
	}
	runDir := filepath.Join(t.TempDir(), "run")
	if code, _, stderr := run(t, nil, "apply", tplan, "--out", runDir); code != 0 {
		t.Fatalf("apply: exit %d: %s", code, stderr)
	}
	f, err := os.Open(filepath.Join(runDir, exec.SamplesFile))
	if err != nil {
		t.Fatal(err)
	}
	samples, err := results.ReadSamples(f)
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	type file struct {
		Filename    string `json:"filename"`
		ContentType string `json:"content_type"`
		Size        int    `json:"size"`
		SHA256      string `json:"sha256"`
	}
	type reply struct {
		Kind   string              `json:"kind"`
		Size   int                 `json:"size"`
		SHA256 string              `json:"sha256"`
		Fields map[string][]string `json:"fields"`
		Files  map[string][]file   `json:"files"`
	}
	got := map[string]reply{}
	for _, s := range samples {
		var r reply
		if s.Status != 200 || json.Unmarshal(s.Body, &r) != nil {
			t.Fatalf("%s: status %d, body %q", s.Endpoint, s.Status, s.Body)
		}
		got[s.Endpoint] = r
	}
	mp := got["s.multipart"]
	if mp.Kind != "multipart" || fmt.Sprint(mp.Fields["title"]) != "[cat #0 second]" ||
		len(mp.Files["photo"]) != 1 || mp.Files["photo"][0] != (file{"cat.png", "image/png", len(png), pngSum}) {
		t.Errorf("multipart arrived as %+v", mp)
	}
	if bin := got["s.binary"]; bin.Kind != "raw" || bin.Size != len(png) || bin.SHA256 != pngSum {
		t.Errorf("binary body arrived as %+v, want %d bytes of sha256 %s", bin, len(png), pngSum)
	}
	if form := got["s.form"]; form.Kind != "form" || fmt.Sprint(form.Fields) != "map[n:[0] q:[a b&c]]" {
		t.Errorf("form arrived as %+v", form)
	}
	// The archive carries the file too, and verifies.
	archive := filepath.Join(t.TempDir(), "run.tressi.tar.zst")
	if code, _, stderr := run(t, nil, "archive", runDir, "-o", archive); code != 0 {
		t.Fatalf("archive: exit %d: %s", code, stderr)
	}
	if code, stdout, stderr := run(t, nil, "verify", archive); code != 0 {
		t.Fatalf("verify: exit %d: %s%s", code, stdout, stderr)
	}
}
