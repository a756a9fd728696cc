package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tressi/tressi/compile"
)

func planSummary(t *testing.T, args ...string) compile.Summary {
	t.Helper()
	code, out, errs := run(t, nil, append([]string{"plan", "--json"}, args...)...)
	if code != ExitOK {
		t.Fatalf("tressi plan %v: exit %d\n%s%s", args, code, out, errs)
	}
	var s compile.Summary
	if err := json.Unmarshal([]byte(out), &s); err != nil {
		t.Fatalf("%v in %s", err, out)
	}
	return s
}

func TestPlanText(t *testing.T) {
	code, out, errs := run(t, nil, "plan", "testdata/ramp/ramp.hcl")
	if code != ExitOK || errs != "" {
		t.Fatalf("exit %d, stderr %q", code, errs)
	}
	golden(t, "plan_ramp.txt", out)
}

// The contract's exactness: 10→100 req/s over 10 s is 550, plus 500, split
// 3:1 exactly; the same plan in JSON syntax compiles to the same hash.
func TestPlanExactAndSyntaxIndependent(t *testing.T) {
	hclSum := planSummary(t, "testdata/ramp/ramp.hcl")
	if hclSum.Requests != 1050 {
		t.Fatalf("requests = %d, want 1050", hclSum.Requests)
	}
	counts := map[string]int64{}
	for _, e := range hclSum.Endpoints {
		counts[e.Name] = e.Requests
	}
	if counts["home"] != 788 || counts["create"] != 262 { // 1050 = 262 cycles of 4 + "home, home"
		t.Fatalf("counts = %v", counts)
	}
	jsonSum := planSummary(t, "testdata/ramp/ramp.hcl.json")
	if jsonSum.ScheduleHash != hclSum.ScheduleHash || hclSum.ScheduleHash == "" {
		t.Fatalf("HCL hash %s, JSON hash %s", hclSum.ScheduleHash, jsonSum.ScheduleHash)
	}
	again := planSummary(t, "testdata/ramp/ramp.hcl")
	if again.ScheduleHash != hclSum.ScheduleHash {
		t.Fatal("compiling twice gave two hashes")
	}
}

func TestPlanSeedChangesHash(t *testing.T) {
	src, err := os.ReadFile("testdata/ramp/ramp.hcl")
	if err != nil {
		t.Fatal(err)
	}
	a := planSummary(t, "testdata/ramp/ramp.hcl")
	b := replaceSeed(t, src, t.TempDir())
	if a.ScheduleHash == b.ScheduleHash {
		t.Fatal("a different seed gave the same hash")
	}
}

func replaceSeed(t *testing.T, src []byte, dir string) compile.Summary {
	t.Helper()
	s := string(src)
	i := strings.Index(s, "seed = 7")
	if i < 0 {
		t.Fatal("fixture lost its seed line")
	}
	path := filepath.Join(dir, "seed8.hcl")
	if err := os.WriteFile(path, []byte(s[:i]+"seed = 8"+s[i+len("seed = 7"):]), 0o644); err != nil {
		t.Fatal(err)
	}
	return planSummary(t, path)
}

func TestPlanOutWritesReadableTPlan(t *testing.T) {
	out := filepath.Join(t.TempDir(), "run.tplan")
	sum := planSummary(t, "testdata/ramp/ramp.hcl", "-out", out)
	f, err := os.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	tp, err := compile.ReadTPlan(f)
	if err != nil {
		t.Fatal(err)
	}
	if tp.Schedule.Hash != sum.ScheduleHash || tp.Schedule.Count != 1050 {
		t.Fatalf("tplan hash %s count %d, want %s 1050", tp.Schedule.Hash, tp.Schedule.Count, sum.ScheduleHash)
	}
	if len(tp.Sources) == 0 {
		t.Fatal("the tplan carries no plan sources")
	}
}

func TestPlanInvalidExits1(t *testing.T) {
	code, out, errs := run(t, nil, "plan", "testdata/invalid.hcl")
	if code != ExitInvalid || out != "" || errs == "" {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, out, errs)
	}
}
