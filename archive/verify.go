package archive

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"testing/fstest"

	"github.com/RoaringBitmap/roaring/v2/roaring64"
	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"
	ctyjson "github.com/zclconf/go-cty/cty/json"

	"github.com/tressi/tressi/compile"
	"github.com/tressi/tressi/plan"
	"github.com/tressi/tressi/results"
)

// VerifyOptions are what the user adds to a verification.
type VerifyOptions struct {
	// Vars supply the sensitive variables the archive left out (-var,
	// -var-file), in command-line order.
	Vars []plan.VarArg
	// Env holds TRESSI_VAR_* for the same purpose.
	Env []string
	// Tressi is the verifying tressi's version (version.Info.String()).
	Tressi string
}

// Check is one line of a verification.
type Check struct {
	// Status is "ok", "FAIL" or "warning".
	Status  string `json:"status"`
	Subject string `json:"subject"` // the file or aspect checked
	Detail  string `json:"detail"`
}

// Verification is every check, in the order made.
type Verification struct {
	Checks []Check `json:"checks"`
	// Diagnostics are the plan loader's, when recompiling failed.
	Diagnostics hcl.Diagnostics `json:"-"`
	Files       map[string]*hcl.File
}

// OK says no check failed (warnings allowed).
func (v *Verification) OK() bool {
	for _, c := range v.Checks {
		if c.Status == "FAIL" {
			return false
		}
	}
	return true
}

func (v *Verification) add(status, subject, format string, args ...any) {
	v.Checks = append(v.Checks, Check{Status: status, Subject: subject, Detail: fmt.Sprintf(format, args...)})
}

// source is where a verification reads the plan from.
type source struct {
	fsys     fs.FS
	moved    map[string]string // the run's absolute source names, by where fsys holds them (plan.Options.Moved)
	planPath string
	label    func(name string) string // how messages name a source file
	values   map[string]compile.TPlanVariable
	varsFile string // the file the values come from, for messages
}

// VerifyArchive checks an opened archive: its manifest, that its plan files
// and variables are the run's, that they compile to the schedule the
// results were recorded from, and every row.
func VerifyArchive(o *Opened, opts VerifyOptions) *Verification {
	v := &Verification{}
	if len(o.Problems) == 0 {
		v.add("ok", ManifestFile, "every file matches its SHA-256 sum")
	}
	for _, p := range o.Problems {
		name, _, _ := strings.Cut(p, ":")
		v.add("FAIL", name, "%s", p)
	}
	if o.Info.Run.Tressi != opts.Tressi {
		v.add("warning", "tressi version", "the run was recorded by tressi %s (archived by %s), this is tressi %s: a schedule that compiles differently may be the version's doing, not the files'",
			o.Info.Run.Tressi, o.Info.ArchivedBy.String(), opts.Tressi)
	}
	src := source{
		fsys: os.DirFS(filepath.Join(o.Dir, PlanDir)), planPath: o.Info.Plan.Path,
		label:  func(n string) string { return PlanDir + "/" + n },
		values: o.Vars.Values, varsFile: VariablesFile,
	}
	if tp, err := readInfo(filepath.Join(o.RunDir, tplanFile)); err == nil {
		mapped, _ := relativeSources(tp.SourceNames(), tp.PlanPath)
		src.moved = movedAbsolute(mapped)
	}
	verifyRun(v, o.RunDir, RunDir+"/", src, o.Info.Plan.Sources, opts)
	return v
}

// VerifyRun checks a run directory: that plan.tplan is the results'
// schedule, that its sources compile to it, and every row.
func VerifyRun(dir string, opts VerifyOptions) *Verification {
	v := &Verification{}
	tp, err := readInfo(filepath.Join(dir, tplanFile))
	if errors.Is(err, fs.ErrNotExist) {
		v.add("FAIL", tplanFile, "is missing from %s: verify recompiles the schedule from it; pass a run directory written by tressi apply", dir)
		return v
	}
	if err != nil {
		v.add("FAIL", tplanFile, "%v", err)
		return v
	}
	mapped, planPath := relativeSources(tp.SourceNames(), tp.PlanPath)
	fsys := fstest.MapFS{}
	for orig, rel := range mapped {
		fsys[rel] = &fstest.MapFile{Data: tp.Sources[orig]}
	}
	rev := map[string]string{}
	for orig, rel := range mapped {
		rev[rel] = orig
	}
	src := source{fsys: fsys, planPath: planPath, label: func(n string) string { return rev[n] + " (in plan.tplan)" },
		values: tp.Variables, varsFile: tplanFile, moved: movedAbsolute(mapped)}
	verifyRun(v, dir, "", src, nil, opts)
	return v
}

// movedAbsolute keeps of mapped (original name → archived name) the
// absolute names: a variable may still name a source file by its absolute
// path, and the plan reads it where the archive put it.
func movedAbsolute(mapped map[string]string) map[string]string {
	moved := map[string]string{}
	for orig, rel := range mapped {
		if n := path.Clean(filepath.ToSlash(orig)); isAbs(n) {
			moved[n] = rel
		}
	}
	return moved
}

func readInfo(p string) (*compile.TPlanInfo, error) {
	f, err := os.Open(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	info, err := compile.ReadTPlanInfo(f)
	if err != nil {
		return nil, err
	}
	return &info, nil
}

// verifyRun makes the checks archives and run directories share. prefix
// names run files in messages; sources (archived name → original) is set
// for archives, whose plan files are compared with plan.tplan's copies.
func verifyRun(v *Verification, dir, prefix string, src source, sources map[string]string, opts VerifyOptions) {
	resName, tpName := prefix+resultsFile, prefix+tplanFile
	r, err := results.Open(filepath.Join(dir, resultsFile))
	if err != nil {
		v.add("FAIL", resName, "%v", err)
		return
	}
	meta := r.Meta
	if sources == nil && meta.Version != opts.Tressi {
		v.add("warning", "tressi version", "the run was recorded by tressi %s, this is tressi %s: a schedule that compiles differently may be the version's doing, not the files'",
			meta.Version, opts.Tressi)
	}
	tp, err := readInfo(filepath.Join(dir, tplanFile))
	if err != nil {
		r.Close()
		v.add("FAIL", tpName, "%v", err)
		return
	}
	if tp.Hash != meta.ScheduleHash {
		v.add("FAIL", tpName, "is schedule %s but %s was recorded from schedule %s: the plan is not the results' own", tp.Hash, resName, meta.ScheduleHash)
	} else {
		v.add("ok", tpName, "schedule %s, the one %s was recorded from", tp.Hash, resName)
	}
	if sources != nil {
		compareSources(v, src, sources, tp, tpName)
	}
	s := recompile(v, src, meta.ScheduleHash, resName, tp.Sensitive, opts)
	per, done := slotRowsOf(v, s, filepath.Join(dir, tplanFile), tpName, meta.Shard)
	defer done()
	checkRows(v, r, resName, tp.Count, meta.Shard, tp.Model == plan.ModelClosed, per)
	checkSamples(v, filepath.Join(dir, samplesFile), prefix+samplesFile)
}

// checkSamples checks samples.arrow as readSamplesFile does; a run
// without one (an older tressi, or a run stopped before it was written)
// has nothing to check.
func checkSamples(v *Verification, path, name string) {
	n, ok, err := readSamplesFile(path)
	switch {
	case err != nil:
		v.add("FAIL", name, "%v", err)
	case ok:
		v.add("ok", name, "%d samples, read whole", n)
	}
}

// readSamplesFile reads a samples file whole, so its checksum is checked:
// how many samples it holds, and whether there is one.
func readSamplesFile(path string) (n int, ok bool, err error) {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return 0, false, nil
	}
	if err != nil {
		return 0, false, err
	}
	defer f.Close()
	ss, err := results.ReadSamples(f)
	return len(ss), true, err
}

// compareSources names each archived plan file or variable that differs
// from the copy plan.tplan keeps: the run compiled from that copy.
func compareSources(v *Verification, src source, sources map[string]string, tp *compile.TPlanInfo, tpName string) {
	names := make([]string, 0, len(sources))
	for n := range sources {
		names = append(names, n)
	}
	sort.Strings(names)
	same := true
	for _, n := range names {
		data, err := fs.ReadFile(src.fsys, n)
		if err != nil {
			v.add("FAIL", src.label(n), "cannot be read: %v", err)
			same = false
			continue
		}
		if want, ok := tp.Sources[sources[n]]; !ok || !bytes.Equal(data, want) {
			v.add("FAIL", src.label(n), "differs from the copy of %s in %s, which the run was compiled from (%s)", sources[n], tpName, firstDifference(data, want))
			same = false
		}
	}
	for name, want := range tp.Variables {
		got, ok := src.values[name]
		if !ok || !bytes.Equal(compactJSON(got.Value), compactJSON(want.Value)) {
			v.add("FAIL", src.varsFile, "variable %s is %s, the run's %s says %s", name, orNone(got.Value, ok), tpName, want.Value)
			same = false
		}
	}
	for name, got := range src.values {
		if _, ok := tp.Variables[name]; !ok {
			v.add("FAIL", src.varsFile, "variable %s = %s is not among the run's variables in %s", name, got.Value, tpName)
			same = false
		}
	}
	if same {
		v.add("ok", PlanDir+"/, "+src.varsFile, "%d plan files and %d variables are the ones the run was compiled from", len(names), len(tp.Variables))
	}
}

func orNone(b []byte, ok bool) string {
	if !ok {
		return "missing"
	}
	return string(b)
}

func compactJSON(b []byte) []byte {
	var out bytes.Buffer
	if err := json.Compact(&out, b); err != nil {
		return b
	}
	return out.Bytes()
}

// firstDifference says where two files first differ, by line.
func firstDifference(a, b []byte) string {
	la, lb := bytes.Split(a, []byte("\n")), bytes.Split(b, []byte("\n"))
	for i := 0; i < len(la) && i < len(lb); i++ {
		if !bytes.Equal(la[i], lb[i]) {
			return fmt.Sprintf("line %d: %q, was %q", i+1, clip(la[i]), clip(lb[i]))
		}
	}
	return fmt.Sprintf("%d lines, was %d", len(la), len(lb))
}

func clip(b []byte) string {
	if len(b) > 60 {
		return string(b[:60]) + "…"
	}
	return string(b)
}

// recompile loads the plan from src with its stored variables (and the
// user's, for sensitive ones) and checks it compiles to hash; it returns
// the schedule when it does.
func recompile(v *Verification, src source, hash, resName string, sensitive []string, opts VerifyOptions) *compile.Schedule {
	var vars []plan.VarArg
	names := make([]string, 0, len(src.values))
	for n := range src.values {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		val, err := decodeValue(src.values[n])
		if err != nil {
			v.add("FAIL", src.varsFile, "variable %s: %v", n, err)
			return nil
		}
		vars = append(vars, plan.VarArg{Value: n + "=" + val})
	}
	vars = append(vars, opts.Vars...)
	planLabel := src.label(src.planPath)
	p, files, diags := plan.Load(plan.Options{Path: src.planPath, FS: src.fsys, Moved: src.moved, Vars: vars, Env: opts.Env})
	if p == nil {
		v.Diagnostics, v.Files = diags, files
		detail := "does not load: " + firstError(diags)
		if len(sensitive) > 0 {
			detail += fmt.Sprintf("; the run used the sensitive variables %s, which archives leave out: pass them with --var name=value or TRESSI_VAR_<name>", strings.Join(sensitive, ", "))
		}
		v.add("FAIL", planLabel, "%s", detail)
		return nil
	}
	s, cdiags := compile.Compile(p)
	if cdiags.HasErrors() {
		v.Diagnostics, v.Files = cdiags, files
		v.add("FAIL", planLabel, "does not compile: %s", firstError(cdiags))
		return nil
	}
	if s.Hash != hash {
		hint := "a plan file or a variable differs from the run's (see the lines above)"
		if missing := unsupplied(sensitive, opts); len(missing) > 0 {
			hint = fmt.Sprintf("the run's sensitive variables %s, which archives leave out, were not given: pass them with --var name=value or TRESSI_VAR_<name>", strings.Join(missing, ", "))
		} else if len(sensitive) > 0 {
			hint += fmt.Sprintf(", or a sensitive variable (%s) has another value than in the run", strings.Join(sensitive, ", "))
		}
		v.add("FAIL", planLabel, "with %s compiles to schedule %s, but %s was recorded from schedule %s: %s", src.varsFile, s.Hash, resName, hash, hint)
		return nil
	}
	size := fmt.Sprintf("%d slots", s.Count)
	if s.Model == compile.Closed {
		size = "closed model"
	}
	v.add("ok", planLabel, "with %s compiles to schedule %s again (%s)", src.varsFile, s.Hash, size)
	return s
}

func firstError(diags hcl.Diagnostics) string {
	for _, d := range diags {
		if d.Severity == hcl.DiagError {
			if d.Subject != nil {
				return fmt.Sprintf("%s: %s: %s", d.Subject.String(), d.Summary, d.Detail)
			}
			return d.Summary + ": " + d.Detail
		}
	}
	return "unknown error"
}

// decodeValue writes a stored value as -var text: strings raw, anything
// else as JSON, which HCL reads as an expression.
func decodeValue(tv compile.TPlanVariable) (string, error) {
	ty, err := ctyjson.UnmarshalType(tv.Type)
	if err != nil {
		return "", err
	}
	val, err := ctyjson.Unmarshal(tv.Value, ty)
	if err != nil {
		return "", err
	}
	if val.Type() == cty.String && val.IsKnown() && !val.IsNull() {
		return val.AsString(), nil
	}
	return string(tv.Value), nil
}

// checkRows reads every row: every batch must match its checksum and
// every slot of the schedule (or of the shard) must be there.
func checkRows(v *Verification, r *results.Reader, resName string, count int64, shard results.Shard, closed bool, per *compile.SlotRows) {
	defer r.Close()
	defer checkSlotRows(v, resName, per)
	seen := roaring64.New()
	var rows int64
	var batches int
	for {
		b, ok := r.Next()
		if !ok {
			break
		}
		batches++
		rows += int64(b.Len)
		seen.AddMany(b.Slot)
		if per != nil {
			per.Add(b.Slot)
		}
	}
	if err := r.Err(); err != nil {
		v.add("FAIL", resName, "%v", err)
		return
	}
	if r.Truncated != nil {
		v.add("FAIL", resName, "%v (after %d rows in %d batches)", r.Truncated, rows, batches)
		return
	}
	if r.Unchecked > 0 {
		v.add("warning", resName, "%d of %d batches carry no checksum (an older tressi wrote them): damage inside them cannot be detected", r.Unchecked, batches)
	}
	if closed {
		checkClosedRows(v, resName, rows, checkedBatches(batches, r.Unchecked), seen, len(r.Meta.Scenarios) > 0)
		return
	}
	want := roaring64.New()
	n, i := uint64(max(shard.Count, 1)), uint64(max(shard.Index, 0))
	if n == 1 {
		want.AddRange(0, uint64(count))
	} else {
		for k := i; k < uint64(count); k += n {
			want.Add(k)
		}
	}
	missing := roaring64.AndNot(want, seen)
	extra := roaring64.AndNot(seen, want)
	// A slot of a scenario is a session: one row per request, all with the
	// session's slot. Any other slot has exactly one row.
	repeated := len(r.Meta.Scenarios) == 0 && uint64(rows) != seen.GetCardinality()
	switch {
	case repeated:
		v.add("FAIL", resName, "%d rows for %d slots: some slots have more than one row (rows repeated?)", rows, seen.GetCardinality())
	case !missing.IsEmpty():
		v.add("FAIL", resName, "%d slots of the schedule have no row (first: %s)", missing.GetCardinality(), firstSlots(missing, 5))
	case !extra.IsEmpty():
		v.add("FAIL", resName, "%d rows have slots outside the schedule (first: %s)", extra.GetCardinality(), firstSlots(extra, 5))
	default:
		v.add("ok", resName, "%d rows in %s, every one of the %d slots (shard %s) is there",
			rows, checkedBatches(batches, r.Unchecked), want.GetCardinality(), shard)
	}
}

func firstSlots(b *roaring64.Bitmap, n int) string {
	var out []string
	it := b.Iterator()
	for it.HasNext() && len(out) < n {
		out = append(out, fmt.Sprint(it.Next()))
	}
	return strings.Join(out, ", ")
}

// unsupplied lists the sensitive variables the user gave no value for
// (-var, TRESSI_VAR_*; a -var-file may hold any of them).
func unsupplied(sensitive []string, opts VerifyOptions) []string {
	var out []string
	for _, name := range sensitive {
		given := false
		for _, v := range opts.Vars {
			n, _, _ := strings.Cut(v.Value, "=")
			given = given || v.File || strings.TrimSpace(n) == name
		}
		for _, kv := range opts.Env {
			given = given || strings.HasPrefix(kv, "TRESSI_VAR_"+name+"=")
		}
		if !given {
			out = append(out, name)
		}
	}
	return out
}

// checkClosedRows checks a closed-model run, whose slots are its requests
// (or sessions) in the order its users started them: how many there are
// depends on the server's speed, so only repeats and gaps can be checked.
func checkClosedRows(v *Verification, resName string, rows int64, checked string, seen *roaring64.Bitmap, scenarios bool) {
	if !scenarios && uint64(rows) != seen.GetCardinality() {
		v.add("FAIL", resName, "%d rows for %d slots: some slots have more than one row (rows repeated?)", rows, seen.GetCardinality())
		return
	}
	if !seen.IsEmpty() {
		if span := seen.Maximum() + 1; seen.GetCardinality() != span {
			v.add("warning", resName, "closed model: %d of slots 0..%d have no row (first: %d)", span-seen.GetCardinality(), span-1, firstMissingSlot(seen))
			return
		}
	}
	v.add("ok", resName, "%d rows, %s; closed model: %d slots, none repeated, no gap", rows, checked, seen.GetCardinality())
}

func firstMissingSlot(b *roaring64.Bitmap) uint64 {
	it := b.Iterator()
	var want uint64
	for it.HasNext() {
		if it.Next() != want {
			return want
		}
		want++
	}
	return want
}

func checkedBatches(batches, unchecked int) string {
	if unchecked == 0 {
		return fmt.Sprintf("%d batches, each matching its checksum", batches)
	}
	return fmt.Sprintf("%d batches, %d of them with a checksum that matches", batches, batches-unchecked)
}
