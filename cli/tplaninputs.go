package cli

import (
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/tressi/tressi/compile"
)

// tplanJSON is `tressi plan X.tplan --json`: the summary plus what the
// schedule was compiled from.
type tplanJSON struct {
	planJSON
	PlanPath  string            `json:"plan_path"`
	Sources   []string          `json:"sources"`
	Variables map[string]string `json:"variables"`
	Sensitive []string          `json:"sensitive,omitempty"`
}

// tplanInputs lists a compiled plan's source files (sorted) and its
// non-sensitive variable values (as JSON).
func tplanInputs(tp *compile.TPlan) ([]string, map[string]string) {
	sources := make([]string, 0, len(tp.Sources))
	for n := range tp.Sources {
		sources = append(sources, n)
	}
	sort.Strings(sources)
	vars := map[string]string{}
	for n, v := range tp.Variables {
		vars[n] = string(v.Value)
	}
	return sources, vars
}

// writeTPlanInputs prints what a compiled plan was compiled from: the
// files it carries and the variable values.
func writeTPlanInputs(w io.Writer, planPath string, sources []string, vars map[string]string) {
	fmt.Fprintf(w, "\nCompiled from %s; it carries %d files: %s\n", planPath, len(sources), strings.Join(sources, ", "))
	names := make([]string, 0, len(vars))
	for n := range vars {
		names = append(names, n)
	}
	sort.Strings(names)
	if len(names) > 0 {
		fmt.Fprintln(w, "Variables:")
		for _, n := range names {
			fmt.Fprintf(w, "  %s = %s\n", n, vars[n])
		}
	}
}
