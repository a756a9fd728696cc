package plan

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A plan that reads files outside its own directory embeds them in every
// .tplan and run directory; the user must hear about each one.
func TestFilesOutsideThePlanDirectoryAreListed(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "plans", "p")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	write := func(path, data string) {
		t.Helper()
		if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	secret := filepath.Join(root, "secret.txt")
	write(secret, "top secret")
	write(filepath.Join(root, "users.csv"), "username\nalice\n")
	write(filepath.Join(dir, "inside.csv"), "username\nbob\n")
	write(filepath.Join(dir, "inside.txt"), "fine")
	write(filepath.Join(dir, "main.hcl"), `
target "t" {
  url = "http://127.0.0.1:1"
}
data "outside" {
  csv = "../../users.csv"
}
data "inside" {
  csv = "inside.csv"
}
endpoint "e" {
  body = "${file("`+secret+`")}${file("inside.txt")}${file("../p/inside.txt")}"
}
load {
  stage {
    duration = "1s"
    rate     = 1
  }
}
`)
	p, _, diags := Load(Options{Path: filepath.Join(dir, "main.hcl")})
	if p == nil {
		t.Fatal(describe(diags))
	}
	var got []string
	for _, d := range diags {
		if d.Summary == "File outside the plan's directory" {
			got = append(got, d.Detail)
			if strings.Contains(d.Detail, "users.csv") && (d.Subject == nil || d.Subject.Start.Line != 6) {
				t.Errorf("the CSV's warning points at %v, want its csv attribute on line 6", d.Subject)
			}
		}
	}
	all := strings.Join(got, "\n")
	if len(got) != 2 || !strings.Contains(all, filepath.Join(root, "users.csv")) || !strings.Contains(all, secret) {
		t.Errorf("warnings %q; want one for users.csv and one for secret.txt", got)
	}
	if strings.Contains(all, "inside") {
		t.Errorf("warnings name a file inside the plan's directory: %q", got)
	}
	if outside := OutsideFiles(p.Path, p.Sources); len(outside) != 2 {
		t.Errorf("OutsideFiles = %q, want users.csv and secret.txt", outside)
	}
}
