package scaleout

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"
)

// -manifests picks the files TestKubernetesManifestsDecodeStrictly reads, so
// a doubtful manifest can be checked the same way:
//
//	go test ./examples/scale-out -run DecodeStrictly -args -manifests testdata/shards-job-misspelt.yaml
var manifests = flag.String("manifests", "kubernetes/*.yaml", "glob of the Kubernetes manifests to decode strictly")

// decodeManifest decodes one Kubernetes object strictly: a field the API
// types do not have (a typo, a field at the wrong level) or a field given
// twice is an error, as `kubectl apply --validate=strict` would say, but in
// CI and without a cluster.
func decodeManifest(path string) (any, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var head struct {
		APIVersion string `json:"apiVersion"`
		Kind       string `json:"kind"`
	}
	if err := yaml.Unmarshal(data, &head); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	var obj any
	switch head.APIVersion + " " + head.Kind {
	case "batch/v1 Job":
		obj = &batchv1.Job{}
	case "v1 PersistentVolumeClaim":
		obj = &corev1.PersistentVolumeClaim{}
	case "v1 ConfigMap":
		obj = &corev1.ConfigMap{}
	case "v1 Secret":
		obj = &corev1.Secret{}
	default:
		return nil, fmt.Errorf("%s: apiVersion %q kind %q: this test knows batch/v1 Job, v1 PersistentVolumeClaim, ConfigMap and Secret; add the type", path, head.APIVersion, head.Kind)
	}
	if err := yaml.UnmarshalStrict(data, obj); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return obj, nil
}

func TestKubernetesManifestsDecodeStrictly(t *testing.T) {
	paths, err := filepath.Glob(*manifests)
	if err != nil || len(paths) == 0 {
		t.Fatalf("no manifests match %q (%v)", *manifests, err)
	}
	for _, p := range paths {
		if _, err := decodeManifest(p); err != nil {
			t.Errorf("%v", err)
		}
	}
}

// The misspelt copy differs from shards-job.yaml by one field name; the
// strict decode must name it.
func TestMisspeltFieldFailsTheStrictDecode(t *testing.T) {
	good, err := os.ReadFile("kubernetes/shards-job.yaml")
	if err != nil {
		t.Fatal(err)
	}
	bad, err := os.ReadFile("testdata/shards-job-misspelt.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if string(bad) != strings.Replace(string(good), "backoffLimit:", "backofLimit:", 1) {
		t.Fatal("testdata/shards-job-misspelt.yaml must be kubernetes/shards-job.yaml with backoffLimit misspelt as backofLimit; regenerate it with sed")
	}
	_, err = decodeManifest("testdata/shards-job-misspelt.yaml")
	if err == nil || !strings.Contains(err.Error(), `unknown field "backofLimit"`) {
		t.Fatalf("err = %v, want it to name the unknown field backofLimit", err)
	}
}

func loadJob(t *testing.T, path string) *batchv1.Job {
	t.Helper()
	obj, err := decodeManifest(path)
	if err != nil {
		t.Fatal(err)
	}
	job, ok := obj.(*batchv1.Job)
	if !ok {
		t.Fatalf("%s is a %T, want a Job", path, obj)
	}
	return job
}

// shardsJob is the checked shape of kubernetes/shards-job.yaml.
type shardsJob struct {
	job       *batchv1.Job
	container corev1.Container
	shards    int
}

func loadShardsJob(t *testing.T) shardsJob {
	t.Helper()
	job := loadJob(t, "kubernetes/shards-job.yaml")
	if len(job.Spec.Template.Spec.Containers) != 1 {
		t.Fatalf("want one container, have %d", len(job.Spec.Template.Spec.Containers))
	}
	if job.Spec.Completions == nil {
		t.Fatal("completions unset")
	}
	return shardsJob{job: job, container: job.Spec.Template.Spec.Containers[0], shards: int(*job.Spec.Completions)}
}

// argAfter returns the argument after flag, or "".
func argAfter(args []string, flag string) string {
	for i := 0; i+1 < len(args); i++ {
		if args[i] == flag {
			return args[i+1]
		}
	}
	return ""
}

func TestShardsJobRunsEachShardOnceTogether(t *testing.T) {
	sj := loadShardsJob(t)
	spec := sj.job.Spec
	if spec.CompletionMode == nil || *spec.CompletionMode != batchv1.IndexedCompletion {
		t.Error("completionMode must be Indexed: pod i runs shard i")
	}
	if spec.Parallelism == nil || int(*spec.Parallelism) != sj.shards {
		t.Errorf("parallelism must equal completions (%d): every shard runs at once", sj.shards)
	}
	if spec.BackoffLimit == nil || *spec.BackoffLimit != 0 {
		t.Error("backoffLimit must be 0: a retried shard sends its load twice")
	}
	if p := spec.Template.Spec.RestartPolicy; p != corev1.RestartPolicyNever {
		t.Errorf("restartPolicy %q, want Never", p)
	}
	args := sj.container.Args
	if args[0] != "apply" {
		t.Fatalf("args %q do not start with apply", args)
	}
	for flag, want := range map[string]string{
		"--expect-hash": "$(SCHEDULE_HASH)",
		"--shard":       fmt.Sprintf("$(JOB_COMPLETION_INDEX)/%d", sj.shards),
		"--start-at":    "$(START_AT)",
	} {
		if got := argAfter(args, flag); got != want {
			t.Errorf("%s %q, want %q", flag, got, want)
		}
	}
	// The plan argument is the ConfigMap's mount (sources, not a .tplan),
	// and --out is on the claim, one directory per shard.
	mounts := map[string]string{}
	for _, m := range sj.container.VolumeMounts {
		mounts[m.Name] = m.MountPath
	}
	if args[1] != mounts["plan"] {
		t.Errorf("apply reads %q, want the plan ConfigMap's mount %q", args[1], mounts["plan"])
	}
	if out := argAfter(args, "--out"); !strings.HasPrefix(out, mounts["results"]+"/") || !strings.Contains(out, "$(JOB_COMPLETION_INDEX)") {
		t.Errorf("--out %q, want a per-shard directory under the results mount %q", out, mounts["results"])
	}
	vols := map[string]corev1.Volume{}
	for _, v := range spec.Template.Spec.Volumes {
		vols[v.Name] = v
	}
	if vols["plan"].ConfigMap == nil {
		t.Error("the plan volume must be a ConfigMap of the plan's sources")
	}
	if pvc := vols["results"].PersistentVolumeClaim; pvc == nil || pvc.ClaimName != resultsClaim(t).Name {
		t.Errorf("the results volume must be the claim in results-pvc.yaml, is %+v", vols["results"])
	}
}

func resultsClaim(t *testing.T) *corev1.PersistentVolumeClaim {
	t.Helper()
	obj, err := decodeManifest("kubernetes/results-pvc.yaml")
	if err != nil {
		t.Fatal(err)
	}
	pvc := obj.(*corev1.PersistentVolumeClaim)
	if len(pvc.Spec.AccessModes) != 1 || pvc.Spec.AccessModes[0] != corev1.ReadWriteMany {
		t.Errorf("the results claim must be ReadWriteMany (shards on several nodes write at once), is %v", pvc.Spec.AccessModes)
	}
	return pvc
}

func TestShardsJobSpreadsAndIsolatesShards(t *testing.T) {
	sj := loadShardsJob(t)
	pod := sj.job.Spec.Template
	aff := pod.Spec.Affinity
	if aff == nil || aff.PodAntiAffinity == nil || len(aff.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution) != 1 {
		t.Fatal("want one required pod anti-affinity term: one shard per node")
	}
	term := aff.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution[0]
	if term.TopologyKey != "kubernetes.io/hostname" {
		t.Errorf("anti-affinity topologyKey %q, want kubernetes.io/hostname", term.TopologyKey)
	}
	if term.LabelSelector == nil || len(term.LabelSelector.MatchLabels) == 0 {
		t.Fatal("anti-affinity needs matchLabels")
	}
	for k, v := range term.LabelSelector.MatchLabels {
		if pod.Labels[k] != v {
			t.Errorf("anti-affinity selects %s=%s, which the shard pods do not carry: it would not keep them apart", k, v)
		}
	}
	// Sensitive variables come from a Secret as TRESSI_VAR_*.
	var fromSecret bool
	for _, e := range sj.container.EnvFrom {
		if e.SecretRef != nil && e.Prefix == "TRESSI_VAR_" {
			fromSecret = true
		}
	}
	if !fromSecret {
		t.Error("want envFrom a Secret with prefix TRESSI_VAR_ for sensitive variables")
	}
	sc := pod.Spec.SecurityContext
	if sc == nil || sc.RunAsNonRoot == nil || !*sc.RunAsNonRoot || sc.FSGroup == nil {
		t.Error("want runAsNonRoot and an fsGroup that can write the claim")
	}
	// Every $(VAR) in the arguments is defined, or Kubernetes passes it on
	// literally.
	defined := map[string]bool{"JOB_COMPLETION_INDEX": true}
	for _, e := range sj.container.Env {
		defined[e.Name] = true
	}
	for _, a := range sj.container.Args {
		for _, m := range regexp.MustCompile(`\$\(([A-Za-z_][A-Za-z0-9_]*)\)`).FindAllStringSubmatch(a, -1) {
			if !defined[m[1]] {
				t.Errorf("argument %q uses $(%s), which the container does not define", a, m[1])
			}
		}
	}
}

func TestMergeJobReadsEveryShard(t *testing.T) {
	sj := loadShardsJob(t)
	merge := loadJob(t, "kubernetes/merge-job.yaml")
	if merge.Spec.BackoffLimit == nil || *merge.Spec.BackoffLimit != 0 {
		t.Error("the merge's backoffLimit must be 0")
	}
	c := merge.Spec.Template.Spec.Containers[0]
	if c.Args[0] != "report" {
		t.Fatalf("merge args %q, want report", c.Args)
	}
	out := argAfter(sj.container.Args, "--out")
	var want []string
	for i := 0; i < sj.shards; i++ {
		want = append(want, strings.ReplaceAll(out, "$(JOB_COMPLETION_INDEX)", fmt.Sprint(i)))
	}
	var got []string
	for _, a := range c.Args[1:] {
		if strings.HasPrefix(a, "-") {
			break
		}
		got = append(got, a)
	}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("the merge reads %q, want every shard's --out: %q", got, want)
	}
	var claim string
	for _, v := range merge.Spec.Template.Spec.Volumes {
		if v.PersistentVolumeClaim != nil {
			claim = v.PersistentVolumeClaim.ClaimName
		}
	}
	if claim != resultsClaim(t).Name {
		t.Errorf("the merge mounts claim %q, want the shards' %q", claim, resultsClaim(t).Name)
	}
}

func TestShardsJobIsSizedFromThePlan(t *testing.T) {
	sj := loadShardsJob(t)
	need := sizeFor(t, sj.shards)
	res := sj.container.Resources
	cpu, mem := res.Requests.Cpu(), res.Requests.Memory()
	if cpu.MilliValue() < int64(need.cores*1000) {
		t.Errorf("cpu request %s, want at least %.2f cores for %.0f req/s per shard", cpu, need.cores, need.shardPeak)
	}
	if mem.Value() < need.memoryMiB<<20 {
		t.Errorf("memory request %s, want at least %d Mi", mem, need.memoryMiB)
	}
	if !res.Limits.Cpu().Equal(*cpu) || !res.Limits.Memory().Equal(*mem) {
		t.Error("limits must equal requests: a Guaranteed pod gets whole cores, and a throttled shard delays its sends")
	}
}
