package cli

import (
	"bytes"
	"os"
	"strings"
	"testing"
)

// TestCLIDocsUpToDate: docs/cli.md is what the command tree generates; a
// flag or command added without `go run ./cli/gendocs` fails here
// (go test ./cli -update rewrites it too).
func TestCLIDocsUpToDate(t *testing.T) {
	var b bytes.Buffer
	if err := WriteCLIDocs(&b); err != nil {
		t.Fatal(err)
	}
	const path = "../docs/cli.md"
	if *update {
		if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(b.Bytes(), want) {
		t.Errorf("docs/cli.md is stale: run `go run ./cli/gendocs` (or go test ./cli -update) and commit it")
	}
}

// TestEveryCommandHasAnExample: the reference shows each of tressi's own
// commands in use.
func TestEveryCommandHasAnExample(t *testing.T) {
	for _, c := range visibleCommands(newRoot(&env{})) {
		if strings.TrimSpace(c.Example) == "" {
			t.Errorf("%s has no Example", c.CommandPath())
		}
		for _, line := range strings.Split(c.Example, "\n") {
			if !strings.HasPrefix(strings.TrimSpace(line), c.CommandPath()) {
				t.Errorf("%s: example %q does not run the command", c.CommandPath(), line)
			}
		}
	}
}
