package cli

import (
	"fmt"
	"os"
	"strings"

	"github.com/tressi/tressi/compile"
)

// summariseTPlan is `tressi plan FILE.tplan`: the compiled schedule is read
// back (every slot checked against its hash) and summarised as `tressi
// plan` summarises a plan, under one line saying what the file is.
func summariseTPlan(e *env, path string, asJSON bool) error {
	fh, err := os.Open(path)
	if err != nil {
		return withCode(ExitInvalid, err)
	}
	defer fh.Close()
	tp, err := compile.ReadTPlan(fh)
	if err != nil {
		return withCode(ExitInvalid, fmt.Errorf("%s: %w", path, err))
	}
	sum := compile.Summarize(tp.Schedule)
	if asJSON {
		return printJSON(e, planJSON{Summary: sum, Diagnostics: []jsonDiagnostic{}})
	}
	fmt.Fprintf(e.stdout, "%s is a compiled schedule (.tplan); run it with: tressi apply %s\n", path, path)
	if len(tp.Sensitive) > 0 {
		fmt.Fprintf(e.stdout, "It leaves out the sensitive variables %s: pass them again with --var or TRESSI_VAR_<name> when you apply it.\n",
			strings.Join(tp.Sensitive, ", "))
	}
	if err := sum.WriteText(e.stdout); err != nil {
		return withCode(ExitInternal, err)
	}
	return nil
}
