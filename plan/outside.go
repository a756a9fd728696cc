package plan

import (
	"fmt"
	"path/filepath"
	"sort"
	"strings"

	"github.com/hashicorp/hcl/v2"
)

// A plan's data CSVs and file() reads are embedded in its .tplan and in
// every run directory's plan.tplan, which people share. A path such as
// "../../etc/passwd" or "/home/me/.netrc" is valid, but it must never be
// embedded without a word: each file outside the plan's directory gets a
// warning, which validate, plan and apply print.

// OutsideFiles lists the sources of a plan that lie outside the plan's
// directory (planPath is Plan.Path: a plan file or directory among or
// beside the sources), by lexical comparison of cleaned paths.
func OutsideFiles(planPath string, sources map[string][]byte) []string {
	dir := planPath
	if _, isFile := sources[planPath]; isFile || strings.HasSuffix(planPath, ".hcl") || strings.HasSuffix(planPath, ".json") {
		dir = filepath.Dir(planPath)
	}
	var out []string
	for name := range sources {
		if outsideDir(dir, name) {
			out = append(out, name)
		}
	}
	sort.Strings(out)
	return out
}

// outsideDir says whether file lies outside dir, both as written (relative
// to the working directory, or absolute).
func outsideDir(dir, file string) bool {
	if abs, err := filepath.Abs(dir); err == nil {
		dir = abs
	}
	if abs, err := filepath.Abs(file); err == nil {
		file = abs
	}
	rel, err := filepath.Rel(dir, file)
	return err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// warnOutside warns, once per file, when a file the plan reads lies outside
// its directory; subject is where the plan names it, nil for file().
func (l *loader) warnOutside(path string, subject *hcl.Range) {
	if !outsideDir(l.dir, path) || l.warnedOutside[path] {
		return
	}
	if l.warnedOutside == nil {
		l.warnedOutside = map[string]bool{}
	}
	l.warnedOutside[path] = true
	shown := path
	if abs, err := filepath.Abs(path); err == nil && l.opts.FS == nil {
		shown = abs
	}
	l.diags = append(l.diags, &hcl.Diagnostic{
		Severity: hcl.DiagWarning,
		Summary:  "File outside the plan's directory",
		Detail: fmt.Sprintf("The plan reads %s, outside its directory %s. Its content is embedded in every .tplan and run directory made from this plan; "+
			"check you meant to share it, or copy the file next to the plan.", shown, l.dir),
		Subject: subject,
	})
}
