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

// readmeCommands is every `tressi plan|apply examples/…` command in the
// README's sh blocks, continuation lines joined and comments dropped, as
// argument lists without the leading "tressi".
func readmeCommands(t *testing.T) [][]string {
	t.Helper()
	b, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	var cmds [][]string
	inSh, pending := false, ""
	for _, line := range strings.Split(string(b), "\n") {
		switch {
		case strings.HasPrefix(line, "```sh"):
			inSh = true
			continue
		case strings.HasPrefix(line, "```"):
			inSh = false
			continue
		case !inSh:
			continue
		}
		if i := strings.Index(line, " #"); i >= 0 {
			line = line[:i]
		}
		line = strings.TrimSpace(line)
		if cont, ok := strings.CutSuffix(line, "\\"); ok {
			pending += cont + " "
			continue
		}
		line, pending = pending+line, ""
		f := strings.Fields(line)
		if len(f) >= 3 && f[0] == "tressi" && (f[1] == "plan" || f[1] == "apply") && strings.HasPrefix(f[2], "examples/") {
			cmds = append(cmds, f[1:])
		}
	}
	return cmds
}

// Every plan the README tells a newcomer to apply compiles as written, with
// the variables written, and draws no warning: a warning there means the
// command as written cannot work (the Artillery command's sessions queued
// for connections, and the report blamed the CPU).
func TestReadmeExampleCommandsPlanCleanly(t *testing.T) {
	cmds := readmeCommands(t)
	if len(cmds) < 6 {
		t.Fatalf("found %d README commands, want the login, Tinode, Artillery and capacity ones: %q", len(cmds), cmds)
	}
	for _, c := range cmds {
		t.Run(strings.Join(c, " "), func(t *testing.T) {
			args := append([]string{"plan", "../" + c[1]}, c[2:]...)
			code, out, errs := run(t, nil, args...)
			if code != ExitOK || errs != "" {
				t.Fatalf("tressi %s: exit %d, want 0 and no warning:\n%s%s", strings.Join(c, " "), code, errs, out)
			}
		})
	}
}
