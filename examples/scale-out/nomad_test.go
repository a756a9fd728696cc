package scaleout

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/function"
	"github.com/zclconf/go-cty/cty/function/stdlib"
)

// The Nomad jobs are checked with HCL's own parser and an evaluation context
// that mimics jobspec2's: var.*, file() relative to the submitting
// directory, concat() and range(); ${NOMAD_ALLOC_INDEX} is kept for the
// client to fill in at run time, as Nomad keeps it. (Nomad itself is not
// under an open-source licence, so its jobspec package is not used.)

// nomadJob is a parsed job file and the context its expressions evaluate in.
type nomadJob struct {
	path string
	body *hclsyntax.Body
	ctx  *hcl.EvalContext
}

// runtimeVars are the client's runtime variables, left for it to fill.
var runtimeVars = []string{"NOMAD_ALLOC_INDEX"}

func parseNomad(t *testing.T, path string, given map[string]cty.Value) nomadJob {
	t.Helper()
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	f, diags := hclsyntax.ParseConfig(src, path, hcl.InitialPos)
	if diags.HasErrors() {
		t.Fatalf("%s: %v", path, diags)
	}
	body := f.Body.(*hclsyntax.Body)
	vars := map[string]cty.Value{}
	for _, b := range blocksOf(body, "variable") {
		name := b.Labels[0]
		if v, ok := given[name]; ok {
			vars[name] = v
			continue
		}
		def, ok := b.Body.Attributes["default"]
		if !ok {
			t.Fatalf("%s: variable %q has no default; the test must give it", path, name)
		}
		v, diags := def.Expr.Value(nil)
		if diags.HasErrors() {
			t.Fatalf("%s: variable %q: %v", path, name, diags)
		}
		vars[name] = v
	}
	for name := range given {
		if _, ok := vars[name]; !ok {
			t.Fatalf("%s declares no variable %q", path, name)
		}
	}
	ctx := &hcl.EvalContext{
		Variables: map[string]cty.Value{"var": cty.ObjectVal(vars)},
		Functions: map[string]function.Function{
			"concat": stdlib.ConcatFunc,
			"range":  stdlib.RangeFunc,
			"file":   fileFunc(filepath.Dir(path)),
		},
	}
	for _, name := range runtimeVars {
		ctx.Variables[name] = cty.StringVal("${" + name + "}")
	}
	return nomadJob{path: path, body: body, ctx: ctx}
}

// fileFunc is jobspec2's file(): a path relative to where `nomad job run`
// runs, which the README says is examples/scale-out (the job file's parent).
func fileFunc(jobDir string) function.Function {
	return function.New(&function.Spec{
		Params: []function.Parameter{{Name: "path", Type: cty.String}},
		Type:   function.StaticReturnType(cty.String),
		Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
			data, err := os.ReadFile(filepath.Join(filepath.Dir(jobDir), args[0].AsString()))
			if err != nil {
				return cty.NilVal, err
			}
			return cty.StringVal(string(data)), nil
		},
	})
}

func blocksOf(body *hclsyntax.Body, typ string) []*hclsyntax.Block {
	var out []*hclsyntax.Block
	for _, b := range body.Blocks {
		if b.Type == typ {
			out = append(out, b)
		}
	}
	return out
}

// one returns the only block of typ in body.
func (j nomadJob) one(t *testing.T, body *hclsyntax.Body, typ string) *hclsyntax.Body {
	t.Helper()
	bs := blocksOf(body, typ)
	if len(bs) != 1 {
		t.Fatalf("%s: want one %s block, have %d", j.path, typ, len(bs))
	}
	return bs[0].Body
}

// value evaluates attribute name of body; cty.NilVal when it is absent.
func (j nomadJob) value(t *testing.T, body *hclsyntax.Body, name string) cty.Value {
	t.Helper()
	a, ok := body.Attributes[name]
	if !ok {
		return cty.NilVal
	}
	v, diags := a.Expr.Value(j.ctx)
	if diags.HasErrors() {
		t.Fatalf("%s: %s: %v", j.path, name, diags)
	}
	return v
}

func (j nomadJob) str(t *testing.T, body *hclsyntax.Body, name string) string {
	t.Helper()
	v := j.value(t, body, name)
	if v == cty.NilVal || v.Type() != cty.String {
		return fmt.Sprintf("<%s: not a string>", name)
	}
	return v.AsString()
}

func (j nomadJob) num(t *testing.T, body *hclsyntax.Body, name string) float64 {
	t.Helper()
	v := j.value(t, body, name)
	if v == cty.NilVal || v.Type() != cty.Number {
		return math.NaN()
	}
	f, _ := v.AsBigFloat().Float64()
	return f
}

func (j nomadJob) strings(t *testing.T, body *hclsyntax.Body, name string) []string {
	t.Helper()
	v := j.value(t, body, name)
	if v == cty.NilVal || !(v.Type().IsListType() || v.Type().IsTupleType()) {
		t.Fatalf("%s: %s is not a list", j.path, name)
	}
	var out []string
	for it := v.ElementIterator(); it.Next(); {
		_, e := it.Element()
		out = append(out, e.AsString())
	}
	return out
}

// Values the operator passes with -var.
var nomadGiven = map[string]cty.Value{
	"start_at":      cty.StringVal("2026-01-01T12:00:00Z"),
	"schedule_hash": cty.StringVal("sha256:0123456789abcdef"),
	"run":           cty.StringVal("r1"),
}

// nomadShards is the checked shape of nomad/shards.nomad.
type nomadShards struct {
	j      nomadJob
	group  *hclsyntax.Body
	task   *hclsyntax.Body
	args   []string
	shards int
}

func loadNomadShards(t *testing.T) nomadShards {
	t.Helper()
	j := parseNomad(t, "nomad/shards.nomad", nomadGiven)
	job := j.one(t, j.body, "job")
	if typ := j.str(t, job, "type"); typ != "batch" {
		t.Errorf("job type %q, want batch", typ)
	}
	group := j.one(t, job, "group")
	task := j.one(t, group, "task")
	return nomadShards{j: j, group: group, task: task, args: j.strings(t, j.one(t, task, "config"), "args"),
		shards: int(j.num(t, group, "count"))}
}

func TestNomadShardsRunOnceOnDistinctHosts(t *testing.T) {
	n := loadNomadShards(t)
	j, group := n.j, n.group
	resched := j.one(t, group, "reschedule")
	if a, u := j.num(t, resched, "attempts"), j.value(t, resched, "unlimited"); a != 0 || u != cty.False {
		t.Errorf("reschedule { attempts = %v unlimited = %#v }, want 0 and false: a rescheduled shard sends its load twice", a, u)
	}
	restart := j.one(t, group, "restart")
	if a, m := j.num(t, restart, "attempts"), j.str(t, restart, "mode"); a != 0 || m != "fail" {
		t.Errorf("restart { attempts = %v mode = %q }, want 0 and fail", a, m)
	}
	var distinct bool
	for _, c := range blocksOf(group, "constraint") {
		if j.str(t, c.Body, "operator") == "distinct_hosts" && j.value(t, c.Body, "value").Equals(cty.StringVal("true")).True() {
			distinct = true
		}
	}
	if !distinct {
		t.Error(`want constraint { operator = "distinct_hosts" value = "true" }: one shard per client`)
	}
	if n.shards < 1 || argAfter(n.args, "--shard") != fmt.Sprintf("${NOMAD_ALLOC_INDEX}/%d", n.shards) {
		t.Errorf("--shard %q with count %d, want ${NOMAD_ALLOC_INDEX}/%d", argAfter(n.args, "--shard"), n.shards, n.shards)
	}
	if d := j.str(t, n.task, "driver"); d != "docker" && d != "podman" {
		t.Errorf("driver %q, want docker or podman (the image carries tressi)", d)
	}
	if img := j.str(t, j.one(t, n.task, "config"), "image"); img != j.ctx.Variables["var"].GetAttr("image").AsString() {
		t.Errorf("image %q is not var.image", img)
	}
}

func TestNomadShardsKeepResultsAndPlanSources(t *testing.T) {
	n := loadNomadShards(t)
	j := n.j
	vol := blocksOf(n.group, "volume")
	if len(vol) != 1 || j.str(t, vol[0].Body, "type") != "host" {
		t.Fatal("want one host volume for the results: alloc/data is garbage-collected with the allocation")
	}
	mount := j.one(t, n.task, "volume_mount")
	if j.str(t, mount, "volume") != vol[0].Labels[0] {
		t.Errorf("volume_mount names %q, the group's volume is %q", j.str(t, mount, "volume"), vol[0].Labels[0])
	}
	if out := argAfter(n.args, "--out"); !strings.HasPrefix(out, j.str(t, mount, "destination")+"/") {
		t.Errorf("--out %q is not on the results volume (%s)", out, j.str(t, mount, "destination"))
	}
	// The plan's sources travel in a template, at the path apply reads.
	plan, err := os.ReadFile("plan/plan.hcl")
	if err != nil {
		t.Fatal(err)
	}
	var shipped, secret bool
	for _, tb := range blocksOf(n.task, "template") {
		data, dest := j.str(t, tb.Body, "data"), j.str(t, tb.Body, "destination")
		if data == string(plan) && "/"+filepath.Dir(dest) == n.args[1] {
			shipped = true
		}
		if strings.Contains(data, "TRESSI_VAR_") && j.value(t, tb.Body, "env") == cty.True {
			secret = true
		}
	}
	if !shipped {
		t.Errorf("no template writes plan/plan.hcl where apply reads it (%s)", n.args[1])
	}
	if !secret {
		t.Error("want an env template giving sensitive variables as TRESSI_VAR_*")
	}
}

// The Nomad job and the Kubernetes Job run one command line: what one shard
// does does not depend on the orchestrator.
func TestNomadAndKubernetesShardsRunTheSameArguments(t *testing.T) {
	n := loadNomadShards(t)
	sj := loadShardsJob(t)
	if n.shards != sj.shards {
		t.Fatalf("nomad runs %d shards, kubernetes %d", n.shards, sj.shards)
	}
	nomad := substitute(n.args, map[string]string{"${NOMAD_ALLOC_INDEX}": "2"})
	k8s := substitute(sj.container.Args, map[string]string{
		"$(JOB_COMPLETION_INDEX)": "2", "$(SCHEDULE_HASH)": nomadGiven["schedule_hash"].AsString(),
		"$(START_AT)": nomadGiven["start_at"].AsString(), "$(RUN)": nomadGiven["run"].AsString(),
	})
	nomad[1], k8s[1] = "PLAN", "PLAN" // /local/plan and /plan: each one's mount
	if strings.Join(nomad, " ") != strings.Join(k8s, " ") {
		t.Errorf("shard 2 runs\n  nomad:      %q\n  kubernetes: %q", nomad, k8s)
	}
}

func substitute(args []string, repl map[string]string) []string {
	out := make([]string, len(args))
	for i, a := range args {
		for from, to := range repl {
			a = strings.ReplaceAll(a, from, to)
		}
		out[i] = a
	}
	return out
}

func TestNomadShardsAreSizedFromThePlan(t *testing.T) {
	n := loadNomadShards(t)
	need := sizeFor(t, n.shards)
	res := n.j.one(t, n.task, "resources")
	if cores := n.j.num(t, res, "cores"); cores < math.Ceil(need.cores) {
		t.Errorf("cores = %v, want at least %.0f for %.0f req/s per shard", cores, math.Ceil(need.cores), need.shardPeak)
	}
	if mem := n.j.num(t, res, "memory"); mem < float64(need.memoryMiB) {
		t.Errorf("memory = %v MB, want at least %d", mem, need.memoryMiB)
	}
}

func TestNomadMergeReadsEveryShard(t *testing.T) {
	n := loadNomadShards(t)
	j := parseNomad(t, "nomad/merge.nomad", map[string]cty.Value{"run": nomadGiven["run"]})
	group := j.one(t, j.one(t, j.body, "job"), "group")
	task := j.one(t, group, "task")
	args := j.strings(t, j.one(t, task, "config"), "args")
	out := argAfter(n.args, "--out")
	want := []string{"report"}
	for i := 0; i < n.shards; i++ {
		want = append(want, strings.ReplaceAll(out, "${NOMAD_ALLOC_INDEX}", fmt.Sprint(i)))
	}
	if got := args[:min(len(args), len(want))]; strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("merge args %q, want %q then flags", args, want)
	}
	shardVol := blocksOf(n.group, "volume")[0].Body
	vol := j.one(t, group, "volume")
	if j.str(t, vol, "source") != n.j.str(t, shardVol, "source") {
		t.Errorf("the merge reads host volume %q, the shards write %q", j.str(t, vol, "source"), n.j.str(t, shardVol, "source"))
	}
	resched := j.one(t, group, "reschedule")
	if j.num(t, resched, "attempts") != 0 {
		t.Error("the merge must not be rescheduled: its exit code is the verdict")
	}
}
