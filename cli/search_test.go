package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tressi/tressi/testserver"
)

func TestPlanSearchShowsBoundsAndWorstCase(t *testing.T) {
	code, out, errs := run(t, nil, "plan", "testdata/search/search.hcl")
	if code != ExitOK || !strings.Contains(errs, "Warning: Few requests per probe") {
		t.Fatalf("exit %d, stderr %q: want the short-hold warning (40 req/s × 1.2s is 48 requests for a p99)", code, errs)
	}
	golden(t, "search/plan.txt", out)

	code, out, _ = run(t, nil, "plan", "--json", "testdata/search/search.hcl", "-var", "model=closed", "-var", "from=2", "-var", "to=64")
	if code != ExitOK {
		t.Fatalf("plan --json: exit %d", code)
	}
	var sum searchPlanSummary
	if err := json.Unmarshal([]byte(out), &sum); err != nil {
		t.Fatal(err)
	}
	if sum.Model != "closed" || sum.Unit != "users" || sum.WorstCaseS != 7.9 || len(sum.Ladder) != 5 || sum.Ladder[4] != 32 {
		t.Fatalf("summary %+v", sum)
	}

	code, _, errs = run(t, nil, "plan", "-out", filepath.Join(t.TempDir(), "x.tplan"), "testdata/search/search.hcl")
	if code != ExitInvalid || !strings.Contains(errs, "a search plan has one schedule per probe") {
		t.Fatalf("plan -out on a search: exit %d, %q", code, errs)
	}
}

func TestValidateSearchMistakes(t *testing.T) {
	code, _, errs := run(t, nil, "validate", "testdata/search/invalid.hcl")
	if code != ExitInvalid {
		t.Fatalf("exit %d", code)
	}
	for _, want := range []string{"Invalid search to", "Invalid search hold", "Invalid search precision",
		"Invalid search max_probes", "Invalid search growth", "Search and stages mixed", "Search without thresholds"} {
		if !strings.Contains(errs, want) {
			t.Errorf("no %q in:\n%s", want, errs)
		}
	}
	code, _, errs = run(t, nil, "validate", "testdata/search/closed_fraction.hcl.json")
	if code != ExitInvalid || !strings.Contains(errs, "Fractional users") {
		t.Fatalf("JSON closed search with 2.5 users: exit %d\n%s", code, errs)
	}
}

// apply runs the probes against the built-in queue (10ms: 100 req/s) and
// prints the search as JSON; report shows the same from the run directory,
// as text, JSON and an HTML page with both charts and the knee. Where the
// knee lands depends on the machine, so only what a user reads is checked.
func TestApplySearchAndReport(t *testing.T) {
	_, addr, err := testserver.StartLoopback(t)
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "run")
	code, out, errs := run(t, nil, "apply", "--json", "--out", dir, "testdata/search/search.hcl", "-var", "base_url=http://"+addr)
	if code != ExitOK && code != ExitThresholds {
		t.Fatalf("exit %d\n%s\n%s", code, out, errs)
	}
	var got struct {
		Search struct {
			MaxRate        *float64          `json:"max_rate"`
			MinFailingRate *float64          `json:"min_failing_rate"`
			Probes         []json.RawMessage `json:"probes"`
		} `json:"search"`
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("%v in %s", err, out)
	}
	if len(got.Search.Probes) == 0 || len(got.Search.Probes) > 5 {
		t.Fatalf("%d probes", len(got.Search.Probes))
	}
	if (got.Search.MaxRate == nil) != (code == ExitThresholds) {
		t.Fatalf("exit %d with max_rate %v: exit 2 means no probe passed", code, got.Search.MaxRate)
	}
	if _, err := os.Stat(filepath.Join(dir, "probe-01", "results.arrow")); err != nil {
		t.Fatal(err)
	}

	code, rep, errs := run(t, nil, "report", dir, "--format", "json")
	if code != ExitOK {
		t.Fatalf("report json: exit %d %s", code, errs)
	}
	if rep != out {
		t.Fatalf("report differs from apply's JSON:\n%s\n---\n%s", rep, out)
	}
	code, text, _ := run(t, nil, "report", dir)
	if code != ExitOK || !strings.Contains(text, "max_rate") || !strings.Contains(text, "min_failing_rate") ||
		!strings.Contains(text, "offered (req/s)") {
		t.Fatalf("report text: exit %d\n%s", code, text)
	}
	code, page, _ := run(t, nil, "report", dir, "--format", "html")
	if code != ExitOK || !strings.Contains(page, `id="chart-achieved"`) || !strings.Contains(page, `id="chart-p99"`) ||
		!strings.Contains(page, "knee") || strings.Contains(page, "<script src") || strings.Contains(page, "<link") {
		t.Fatalf("report html: exit %d", code)
	}
	code, _, errs = run(t, nil, "report", dir, "--format", "csv")
	if code != ExitInvalid || !strings.Contains(errs, "tressi report") {
		t.Fatalf("csv of a search: exit %d %q", code, errs)
	}
}
