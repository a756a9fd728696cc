package cli

import (
	"fmt"
	"os"
	"sort"
	"strings"

	"github.com/tressi/tressi/compile"
)

// isTPlanPath says whether `tressi plan PATH` names a compiled plan.
func isTPlanPath(path string) bool { return strings.HasSuffix(path, ".tplan") }

// tplanJSON is `tressi plan X.tplan --json`.
type tplanJSON struct {
	compile.Summary
	PlanPath  string            `json:"plan_path"`
	Sources   []string          `json:"sources"`
	Variables map[string]string `json:"variables"`
	Sensitive []string          `json:"sensitive,omitempty"`
}

// summarizeTPlan prints what a compiled plan holds: the same summary as
// planning its sources (read back from the file, every slot checked), plus
// the sources it carries and the variable values it was compiled with.
func summarizeTPlan(e *env, path string, f *planFlags) error {
	fh, err := os.Open(path)
	if err != nil {
		return withCode(ExitInvalid, fmt.Errorf("%w: pass a plan file or directory, or a .tplan written by tressi plan -out", err))
	}
	defer fh.Close()
	tp, err := compile.ReadTPlan(fh)
	if err != nil {
		return withCode(ExitInvalid, fmt.Errorf("%s: %w", path, err))
	}
	sum := compile.Summarize(tp.Schedule)
	sources := make([]string, 0, len(tp.Sources))
	for n := range tp.Sources {
		sources = append(sources, n)
	}
	sort.Strings(sources)
	vars := map[string]string{}
	for n, v := range tp.Variables {
		vars[n] = string(v.Value)
	}
	if f.json {
		return printJSON(e, tplanJSON{Summary: sum, PlanPath: tp.PlanPath, Sources: sources, Variables: vars, Sensitive: tp.Sensitive})
	}
	w := e.stdout
	fmt.Fprintf(w, "Compiled plan %s (from %s)\n", path, tp.PlanPath)
	if err := sum.WriteText(w); err != nil {
		return withCode(ExitInternal, err)
	}
	fmt.Fprintf(w, "\nSources (%d): %s\n", len(sources), strings.Join(sources, ", "))
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
	if len(tp.Sensitive) > 0 {
		fmt.Fprintf(w, "Sensitive (left out; apply asks for them with -var): %s\n", strings.Join(tp.Sensitive, ", "))
	}
	fmt.Fprintf(w, "\nRun it with: tressi apply %s\n", path)
	return nil
}
