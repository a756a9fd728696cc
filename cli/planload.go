package cli

import (
	"encoding/json"
	"io"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/spf13/cobra"

	"github.com/tressi/tressi/plan"
)

// planFlags are the flags of every command that reads a plan.
type planFlags struct {
	vars     []plan.VarArg
	json     bool
	maxSlots int64
}

// varArgs appends --var or --var-file values to one shared list, so their
// command-line order (which decides precedence) survives flag parsing.
type varArgs struct {
	list *[]plan.VarArg
	file bool
}

func (v varArgs) String() string { return "" }
func (v varArgs) Type() string {
	if v.file {
		return "file"
	}
	return "name=value"
}
func (v varArgs) Set(s string) error {
	*v.list = append(*v.list, plan.VarArg{File: v.file, Value: s})
	return nil
}

// bind registers the plan flags on cmd.
func (f *planFlags) bind(cmd *cobra.Command) {
	fl := cmd.Flags()
	fl.Var(varArgs{list: &f.vars}, "var", "set a plan variable, as name=value (repeatable; later wins)")
	fl.Var(varArgs{list: &f.vars, file: true}, "var-file", "read plan variables from an HCL or JSON file of name = value lines (repeatable)")
	fl.BoolVar(&f.json, "json", false, "print machine-readable JSON")
	fl.Int64Var(&f.maxSlots, "max-slots", 0, "the most requests the schedule may start (default 100000000): a guard against typos, raise it for long runs")
}

// loadPlan loads the plan at path with the flags' variables and the
// process's TRESSI_VAR_* environment.
func loadPlan(e *env, path string, f *planFlags) (*plan.Plan, map[string]*hcl.File, hcl.Diagnostics) {
	if what := notAPlan(path, sniffInput(path)); what != "" {
		return nil, nil, hcl.Diagnostics{{Severity: hcl.DiagError, Summary: what}}
	}
	p, files, diags := plan.Load(plan.Options{Path: path, Vars: f.vars, Env: e.environ})
	if p != nil {
		p.MaxSlots = f.maxSlots
	}
	return p, files, diags
}

// writeDiagnostics renders diagnostics as text (file:line:column, the
// source line and a caret) or as a JSON array.
func writeDiagnostics(w io.Writer, files map[string]*hcl.File, diags hcl.Diagnostics, asJSON bool) error {
	if asJSON {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(jsonDiagnostics(diags))
	}
	return writeDiagnosticsText(w, files, diags)
}

type jsonDiagnostic struct {
	Severity string     `json:"severity"`
	Summary  string     `json:"summary"`
	Detail   string     `json:"detail,omitempty"`
	Range    *jsonRange `json:"range,omitempty"`
}

type jsonRange struct {
	Filename string  `json:"filename"`
	Start    jsonPos `json:"start"`
	End      jsonPos `json:"end"`
}

type jsonPos struct {
	Line   int `json:"line"`
	Column int `json:"column"`
	Byte   int `json:"byte"`
}

func toJSONDiagnostic(d *hcl.Diagnostic) jsonDiagnostic {
	j := jsonDiagnostic{Severity: "error", Summary: d.Summary, Detail: d.Detail}
	if d.Severity == hcl.DiagWarning {
		j.Severity = "warning"
	}
	if r := d.Subject; r != nil {
		j.Range = &jsonRange{
			Filename: r.Filename,
			Start:    jsonPos{r.Start.Line, r.Start.Column, r.Start.Byte},
			End:      jsonPos{r.End.Line, r.End.Column, r.End.Byte},
		}
	}
	return j
}

// planPath is the PATH argument, or "" for the default plan.
func planPath(args []string) string {
	if len(args) == 0 {
		return ""
	}
	return strings.TrimSpace(args[0])
}
