package cli

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// `tressi plan` names every file outside the plan's directory that it
// embeds, and a run of the plan or of its .tplan warns again.
func TestOutsideFilesAreNamedByPlanAndApply(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	defer srv.Close()
	root := t.TempDir()
	dir := filepath.Join(root, "plan")
	os.MkdirAll(dir, 0o755)
	secret := filepath.Join(root, "secret.txt")
	os.WriteFile(secret, []byte("s3cr3t"), 0o644)
	main := filepath.Join(dir, "main.hcl")
	os.WriteFile(main, []byte(fmt.Sprintf(`
target "t" {
  url = %q
}
endpoint "e" {
  body = file("../secret.txt")
}
load {
  stage {
    duration = "1s"
    rate     = 2
  }
}
`, srv.URL)), 0o644)
	tplan := filepath.Join(root, "run.tplan")
	code, _, stderr := run(t, nil, "plan", main, "-out", tplan)
	if code != 0 || !strings.Contains(stderr, "File outside the plan's directory") || !strings.Contains(stderr, secret) {
		t.Errorf("plan: exit %d, stderr %q; want the outside file named", code, stderr)
	}
	for _, target := range []string{main, tplan} {
		code, _, stderr = run(t, nil, "apply", target, "--out", filepath.Join(t.TempDir(), "run"))
		if code != 0 || !strings.Contains(stderr, "outside the plan's directory") || !strings.Contains(stderr, "secret.txt") {
			t.Errorf("apply %s: exit %d, stderr %q; want a warning naming secret.txt", filepath.Base(target), code, stderr)
		}
	}
}
