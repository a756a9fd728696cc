package compile

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/tressi/tressi/plan"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// golden compares got with testdata/name, or rewrites it with -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the golden file:\n--- got\n%s\n--- want\n%s", name, got, want)
	}
}

func summaryPlans(t *testing.T) map[string]*plan.Plan {
	ramped := openPlan(t, []plan.Stage{ramp(10*time.Second, 10, 100), constant(20*time.Second, 100)}, 3, 1)
	ramped.Endpoints[1].MaxRate = 15

	long := openPlan(t, []plan.Stage{ramp(30*time.Minute, 1, 50), constant(30*time.Minute, 0), ramp(30*time.Minute, 50, 1)}, 1, 1, 2)
	long.Load.Arrival = plan.ArrivalPoisson
	long.Load.Selection = plan.SelectRandom

	scen := openPlan(t, []plan.Stage{constant(5*time.Second, 20)}, 1)
	scen.Scenarios = []*plan.Scenario{{Name: "browse", Weight: 1, Steps: []*plan.Step{
		{Name: "list", Repeat: 1, Request: plan.Request{Target: "api", Path: plan.LiteralTemplate("/list")}},
		{Name: "item", Repeat: 4, Request: plan.Request{Target: "api", Path: plan.LiteralTemplate("/item")}},
	}}}

	closed := openPlan(t, []plan.Stage{ramp(10*time.Second, 0, 8), constant(20*time.Second, 8), ramp(10*time.Second, 8, 0)}, 3, 1)
	closed.Load.Model = plan.ModelClosed
	closed.Load.Think = 100 * time.Millisecond
	return map[string]*plan.Plan{"ramped": ramped, "long": long, "scenario": scen, "closed": closed}
}

func TestSummaryGolden(t *testing.T) {
	for name, p := range summaryPlans(t) {
		t.Run(name, func(t *testing.T) {
			s := mustCompile(t, p)
			sum := Summarize(s)
			var text bytes.Buffer
			if err := sum.WriteText(&text); err != nil {
				t.Fatal(err)
			}
			golden(t, "summary_"+name+".txt", text.Bytes())
			js, err := json.MarshalIndent(sum, "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			golden(t, "summary_"+name+".json", append(js, '\n'))
			// A schedule without the pass's counts streams to the same summary.
			s.stats = nil
			again, _ := json.MarshalIndent(Summarize(s), "", "  ")
			if !bytes.Equal(again, js) {
				t.Fatal("streamed summary differs from the compiled one")
			}
		})
	}
}

func TestSummaryCounts(t *testing.T) {
	p := openPlan(t, []plan.Stage{constant(5*time.Second, 2000)}, 3, 1)
	sum := Summarize(mustCompile(t, p))
	if sum.Requests != 10000 || sum.DurationS != 5 || sum.PeakRate != 2000 {
		t.Fatalf("%+v", sum)
	}
	if sum.Endpoints[0].Requests != 7500 || sum.Endpoints[1].Requests != 2500 || sum.Endpoints[0].Share != 0.75 {
		t.Fatalf("%+v", sum.Endpoints)
	}
	if len(sum.Timeline.Counts) != 5 || sum.Timeline.Counts[4] != 2000 {
		t.Fatalf("timeline %+v", sum.Timeline)
	}
}
