package archive

import (
	"path"
	"path/filepath"
	"strings"
)

// relativeSources gives every source file of a plan (named as the loader
// recorded it: relative to the working directory at plan time, or
// absolute) a local slash path under plan/, keeping where each lies
// relative to the others and to the plan, so the plan loads from the
// archive as it loaded from disk: its `file("x.json")` and CSV paths
// resolve to the same files. The common ancestor's own name is kept, so a
// plan directory keeps its name (which names the plan).
func relativeSources(names []string, planPath string) (files map[string]string, plan string) {
	depth := 0
	for _, n := range append([]string{planPath}, names...) {
		n = path.Clean(filepath.ToSlash(n))
		if isAbs(n) {
			continue
		}
		d := 0
		for strings.HasPrefix(n, "../") || n == ".." {
			d++
			n = strings.TrimPrefix(strings.TrimPrefix(n, ".."), "/")
		}
		depth = max(depth, d)
	}
	// Relative names hang below a virtual working directory deep enough
	// for their "..", so every name becomes an absolute slash path.
	root := "/" + strings.Repeat("_/", depth)
	abs := func(n string) string {
		n = filepath.ToSlash(n)
		if vol := filepath.VolumeName(n); vol != "" { // C:/x on Windows
			n = "/" + strings.TrimSuffix(vol, ":") + strings.TrimPrefix(n, vol)
		}
		if isAbs(n) {
			return path.Clean(n)
		}
		return path.Join(root, n)
	}
	planAbs := abs(planPath)
	common := planAbs
	for _, n := range names {
		common = commonDir(common, path.Dir(abs(n)))
	}
	if common == planAbs && len(names) > 0 && !isDirOf(planAbs, names, abs) {
		common = path.Dir(planAbs) // the plan is a file: its directory is the root
	}
	base := path.Dir(common)
	rel := func(n string) string {
		r := strings.TrimPrefix(strings.TrimPrefix(n, base), "/")
		if r == "" {
			return "."
		}
		return r
	}
	files = make(map[string]string, len(names))
	for _, n := range names {
		files[n] = rel(abs(n))
	}
	return files, rel(planAbs)
}

// isDirOf says whether p is a directory holding one of names.
func isDirOf(p string, names []string, abs func(string) string) bool {
	for _, n := range names {
		if strings.HasPrefix(abs(n), p+"/") {
			return true
		}
	}
	return false
}

func isAbs(n string) bool { return strings.HasPrefix(n, "/") }

// commonDir is the deepest directory holding both a and b.
func commonDir(a, b string) string {
	for a != b {
		if len(a) > len(b) {
			a = path.Dir(a)
		} else {
			b = path.Dir(b)
		}
	}
	return a
}
