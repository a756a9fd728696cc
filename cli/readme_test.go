package cli

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReadmeLayoutListsEveryPackage: the README's layout table names every
// directory that holds Go code (top level, and report's subpackages), so a
// newcomer finds each concept there.
func TestReadmeLayoutListsEveryPackage(t *testing.T) {
	b, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	var table strings.Builder // the rows of the README's tables
	for _, line := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(line, "| `") {
			table.WriteString(line + "\n")
		}
	}
	readme := table.String()
	seen := map[string]bool{}
	err = filepath.WalkDir("..", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel("..", path)
		if d.IsDir() && (strings.HasPrefix(d.Name(), ".") && rel != "." || d.Name() == "testdata" || d.Name() == "node_modules") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") {
			return nil
		}
		dir := filepath.ToSlash(filepath.Dir(rel))
		parts := strings.Split(dir, "/")
		switch {
		case dir == ".":
			return nil
		case parts[0] == "report" && len(parts) > 1:
			dir = "report/" + parts[1]
		default:
			dir = parts[0]
		}
		seen[dir] = true
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for dir := range seen {
		if !strings.Contains(readme, "`"+dir+"/") {
			t.Errorf("README.md's layout table has no row for %s/", dir)
		}
	}
}
