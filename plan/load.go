package plan

import (
	"fmt"
	"io/fs"
	"slices"
	"sort"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclparse"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/function"
)

// DefaultPath is the plan loaded when Options.Path is empty.
const DefaultPath = "tressi.hcl"

// VarArg is one --var "name=value" (File false) or --var-file PATH (File true).
// They are applied in command-line order, so a later one wins.
type VarArg struct {
	File  bool
	Value string
}

// Options says where a plan comes from and what its variables are set to.
// Everything the loader reads from the process comes in here, so loading is
// testable and a .tplan replay can feed the very same inputs back.
type Options struct {
	// Path is a plan file or a directory of them; "" means DefaultPath.
	Path string
	// FS is read instead of the OS filesystem when set (tests, .tplan replays).
	// Without it, paths are relative to the working directory.
	FS fs.FS
	// Moved names, with FS, where it holds files the plan once read from
	// an absolute path (a variable's /data/users.csv, say): an archive or a
	// .tplan replay keeps them under a relative name, and the plan, whose
	// variables still say the absolute one, reads them there.
	Moved map[string]string
	// Vars are the --var and --var-file arguments in command-line order.
	Vars []VarArg
	// Env holds KEY=VALUE pairs; TRESSI_VAR_<name> sets a variable. The loader
	// never reads os.Environ itself.
	Env []string
	// Descriptors, by target name, replace what gRPC targets' proto
	// blocks would load (Plan.Descriptors of an earlier load).
	Descriptors map[string][]byte
}

// Load reads, decodes and validates a plan. The Plan is nil when the
// diagnostics hold an error; the files are always returned, keyed by the
// names diagnostics use, so the caller can render diagnostics with source
// snippets.
func Load(opts Options) (*Plan, map[string]*hcl.File, hcl.Diagnostics) {
	l := newLoader(opts)
	p := l.load()
	for _, v := range l.variables {
		if v.Sensitive && v.Value != cty.NilVal {
			l.secrets.add(v.Value)
		}
	}
	l.secrets.addDerived(l.derived, l.sources)
	l.diags = l.secrets.Diagnostics(l.diags)
	if l.diags.HasErrors() {
		return nil, l.parser.Files(), l.diags
	}
	p.Secrets = l.secrets
	p.Descriptors = l.descriptors
	return p, l.parser.Files(), l.diags
}

// loader holds what one Load call builds up while it walks the plan.
type loader struct {
	opts    Options
	src     source
	path    string // plan file or directory, as given
	dir     string // the directory relative paths in the plan are resolved from
	parser  *hclparse.Parser
	sources map[string][]byte
	diags   hcl.Diagnostics
	holes   holeTable
	funcs   map[string]function.Function

	variables map[string]*Variable
	varObject cty.Value
	targets   map[string]*Target
	data      map[string]*Data
	// names holds every endpoint and scenario name: results name both, so
	// they share one name space.
	names map[string]hcl.Range
	// declared counts the top-level blocks of each type.
	declared map[string]int
	// warnedOutside holds the files outside the plan's directory already
	// warned about.
	warnedOutside map[string]bool
	// secrets: every text given for a sensitive variable, valid or not.
	secrets Secrets
	// derived: the literal text of every request value computed from a
	// sensitive one (see noteSensitive).
	derived []string
	// descriptors: the gRPC targets' schemas (Plan.Descriptors).
	descriptors map[string][]byte
}

func newLoader(opts Options) *loader {
	path := opts.Path
	if path == "" {
		path = DefaultPath
	}
	l := &loader{
		opts:      opts,
		src:       newSource(opts.FS, opts.Moved),
		path:      path,
		parser:    hclparse.NewParser(),
		sources:   map[string][]byte{},
		variables: map[string]*Variable{},
		targets:   map[string]*Target{},
		data:      map[string]*Data{},
		names:     map[string]hcl.Range{},
		declared:  map[string]int{},
	}
	l.holes.nonce = newNonce()
	l.funcs = l.functions()
	return l
}

// blocks are the top-level blocks of all plan files, grouped by type in file
// order.
type blocks map[string][]*hcl.Block

func (l *loader) load() *Plan {
	files, name := l.planFiles()
	if len(files) == 0 {
		return nil
	}
	all := blocks{}
	for _, f := range files {
		for _, b := range l.parseFile(f) {
			all[b.Type] = append(all[b.Type], b)
			l.declared[b.Type]++
		}
	}
	if l.diags.HasErrors() {
		// A file that does not parse yields partial blocks; decoding them
		// would mostly repeat the syntax error in other words.
		return nil
	}
	p := &Plan{Name: name, Sources: l.sources, Path: l.path}
	p.Variables = l.decodeVariables(all["variable"])
	p.Data = decodeAll(l, all["data"], l.decodeDataBlock)
	p.Targets = decodeAll(l, all["target"], l.decodeTargetBlock)
	p.Endpoints = decodeAll(l, all["endpoint"], l.decodeEndpointBlock)
	p.Scenarios = decodeAll(l, all["scenario"], l.decodeScenarioBlock)
	p.Load = decodeSingleton(l, all["load"], l.decodeLoadBlock)
	p.Thresholds = decodeSingleton(l, all["thresholds"], l.decodeThresholdsBlock)
	l.checkPlan(p, files)
	if !l.diags.HasErrors() {
		l.diags = append(l.diags, capacityWarnings(p)...)
	}
	return p
}

// decodeAll decodes blocks of one type in order, keeping those that decoded.
func decodeAll[T any](l *loader, bs []*hcl.Block, decode func(*hcl.Block) (*T, hcl.Diagnostics)) []*T {
	var out []*T
	for _, b := range bs {
		v, diags := decode(b)
		l.diags = append(l.diags, diags...)
		if v != nil {
			out = append(out, v)
		}
	}
	return out
}

// decodeSingleton decodes a block type that may appear at most once.
func decodeSingleton[T any](l *loader, bs []*hcl.Block, decode func(*hcl.Block) (*T, hcl.Diagnostics)) *T {
	for _, b := range bs[min(1, len(bs)):] {
		l.diags = append(l.diags, &hcl.Diagnostic{
			Severity: hcl.DiagError,
			Summary:  fmt.Sprintf("Duplicate %s block", b.Type),
			Detail:   fmt.Sprintf("A plan has at most one %s block; the first is at %s. Merge the two into one.", b.Type, bs[0].DefRange),
			Subject:  b.DefRange.Ptr(),
		})
	}
	if len(bs) == 0 {
		return nil
	}
	out := decodeAll(l, bs[:1], decode)
	if len(out) == 0 {
		return nil
	}
	return out[0]
}

// planFiles lists the files to parse and names the plan.
func (l *loader) planFiles() (files []string, name string) {
	info, err := l.src.Stat(l.path)
	if err != nil {
		detail := fmt.Sprintf("Cannot read %s: %v.", l.path, err)
		if l.opts.Path == "" {
			detail += " Run `tressi init` to write a starter plan here, or pass the path of a plan file or directory."
		} else {
			detail += " Check the path, or pass a directory holding *.hcl files."
		}
		l.diags = append(l.diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Plan not found", Detail: detail})
		return nil, ""
	}
	if !info.IsDir() {
		l.dir = l.src.Dir(l.path)
		return []string{l.path}, planName(l.src.Base(l.path))
	}
	l.dir = l.path
	entries, err := l.src.ReadDir(l.path)
	if err != nil {
		l.diags = append(l.diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Cannot read plan directory", Detail: fmt.Sprintf("%s: %v.", l.path, err)})
		return nil, ""
	}
	for _, e := range entries {
		if !e.IsDir() && (strings.HasSuffix(e.Name(), ".hcl") || strings.HasSuffix(e.Name(), ".hcl.json")) {
			files = append(files, l.src.Join(l.path, e.Name()))
		}
	}
	sort.Strings(files)
	if len(files) == 0 {
		l.diags = append(l.diags, &hcl.Diagnostic{
			Severity: hcl.DiagError,
			Summary:  "No plan files in directory",
			Detail:   fmt.Sprintf("%s holds no *.hcl or *.hcl.json files. %s", l.path, noPlanAdvice(l.path, entries, l.src.Join)),
		})
	}
	return files, planName(l.src.Base(l.path))
}

// noPlanAdvice says what to do with a directory that holds no plan: a run
// directory (it holds the plan.tplan its run replayed) or a directory of
// compiled schedules is replayed from its .tplan; any other gets a starter.
func noPlanAdvice(dir string, entries []fs.DirEntry, join func(elem ...string) string) string {
	var tplans []string
	for _, e := range entries {
		if !e.IsDir() && strings.HasSuffix(e.Name(), ".tplan") {
			tplans = append(tplans, e.Name())
		}
	}
	switch {
	case slices.Contains(tplans, "plan.tplan"):
		p := join(dir, "plan.tplan")
		return fmt.Sprintf("It looks like a run directory: to run its plan again, give its compiled schedule, `tressi apply %s`; to read its results, `tressi report %s`.", p, dir)
	case len(tplans) > 0:
		return fmt.Sprintf("It holds a compiled schedule: run it with `tressi apply %s`.", join(dir, tplans[0]))
	}
	return fmt.Sprintf("Run `tressi init %s` to write a starter plan there.", dir)
}

// planName strips a plan file's extensions: "smoke.hcl.json" is "smoke".
func planName(base string) string {
	for _, ext := range []string{".hcl.json", ".hcl", ".json"} {
		if s, ok := strings.CutSuffix(base, ext); ok && s != "" {
			return s
		}
	}
	if base == "." || base == "/" || base == "" {
		return "tressi"
	}
	return base
}

// isJSON reports whether a file uses HCL's JSON syntax.
func isJSON(name string) bool { return strings.HasSuffix(name, ".json") }

// parseFile parses one plan file and returns its top-level blocks.
func (l *loader) parseFile(name string) []*hcl.Block {
	src, err := l.src.ReadFile(name)
	if err != nil {
		l.diags = append(l.diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Cannot read plan file", Detail: fmt.Sprintf("%s: %v.", name, err)})
		return nil
	}
	l.sources[name] = src
	f, diags := l.parse(src, name)
	l.diags = append(l.diags, diags...)
	if f == nil || f.Body == nil {
		return nil
	}
	content, diags := f.Body.Content(rootSchema)
	l.diags = append(l.diags, diags...)
	return content.Blocks
}

// resolve makes a path written in the plan relative to the plan's directory.
func (l *loader) resolve(name string) string {
	if l.src.IsAbs(name) {
		return name
	}
	return l.src.Join(l.dir, name)
}

// parse reads src in the syntax its file name says: JSON for .json and
// .hcl.json, HCL's native syntax otherwise.
func (l *loader) parse(src []byte, name string) (*hcl.File, hcl.Diagnostics) {
	if d := checkNesting(src, name, isJSON(name)); d != nil {
		// The file is not handed to the diagnostic writer: its snippet
		// would print the whole hostile line.
		return nil, hcl.Diagnostics{d}
	}
	if isJSON(name) {
		return l.parser.ParseJSON(src, name)
	}
	return l.parser.ParseHCL(src, name)
}
