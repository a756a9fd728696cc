package exec

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/valyala/fasthttp"

	"github.com/tressi/tressi/compile"
	"github.com/tressi/tressi/plan"
	"github.com/tressi/tressi/results"
	"github.com/tressi/tressi/testserver"
)

// checkForms are one check of every form, each as a step that holds on
// testserver's /json document and one that fails on it.
var checkForms = []struct{ name, pass, fail string }{
	{"json_equals", `json = "status"` + "\n equals = \"ok\"", `json = "status"` + "\n equals = \"ko\""},
	{"json_number", `json = "count"` + "\n equals = 42", `json = "count"` + "\n equals = 41"},
	{"json_regex", `json = "items[1].id"` + "\n regex = \"^1[0-9]$\"", `json = "items[1].id"` + "\n regex = \"^2\""},
	{"json_contains", `json = "data.note"` + "\n contains = \"\\\"hello\\\"\"", `json = "data.note"` + "\n contains = \"bye\""},
	{"json_exists", `json = "data.token"` + "\n exists = true", `json = "data.missing"` + "\n exists = true"},
	{"json_absent", `json = "error"` + "\n exists = false", `json = "status"` + "\n exists = false"},
	{"json_after_pad", `json = "end"` + "\n equals = true", `json = "end"` + "\n equals = false"},
	{"contains", `contains = "\"name\":\"gadget\""`, `contains = "nothing such"`},
	{"regex", `regex = "\"id\":\"1[78]\""`, `regex = "\"id\":\"99\""`},
	{"regex_end", `regex = "\"end\":true}$"`, `regex = "^\"end\""`},
	{"header", `header = "Content-Type"` + "\n contains = \"application/json\"", `header = "Content-Type"` + "\n contains = \"text/html\""},
	{"header_absent", `header = "X-Nope"` + "\n exists = false", `header = "X-Nope"` + "\n exists = true"},
	{"size", `min_size = 100`, `max_size = 50`},
}

func checksPlan(addr, protocol, query string) string {
	var steps strings.Builder
	for _, f := range checkForms {
		for _, v := range []struct{ suffix, body string }{{"pass", f.pass}, {"fail", f.fail}} {
			fmt.Fprintf(&steps, "  step %q {\n    path = \"/json%s\"\n    check %q {\n      %s\n    }\n  }\n", f.name+"_"+v.suffix, query, f.name, v.body)
		}
	}
	return fmt.Sprintf(`
target "t" {
  url         = "http://%s"
  %s
  connections = 2
  timeout     = "20s"
}
scenario "s" {
%s}
load {
  stage {
    duration = "200ms"
    rate     = 10
  }
}
`, addr, protocol, steps.String())
}

// Every check form holds and fails as it should on both engines, over
// HTTP/1.1 and HTTP/2, on bodies sent with a length and chunked, short
// and long enough to arrive in many reads. A failed check is its row's
// check_failed with the response's status, and its sample names it.
func TestChecksOnResponses(t *testing.T) {
	addr := startTarget(t, testserver.Options{})
	for _, tc := range []struct{ name, engine, protocol string }{
		{"loop", EngineLoop, ""},
		{"fasthttp", EngineFasthttp, ""},
		{"loop h2c", EngineLoop, `protocol = "h2c"`},
	} {
		for _, q := range []string{"", "?chunked=1", "?pad=300000", "?pad=300000&chunked=1"} {
			t.Run(tc.name+q, func(t *testing.T) {
				s := compilePlan(t, checksPlan(addr, tc.protocol, q), nil)
				dir := filepath.Join(t.TempDir(), "run")
				out, _ := runPlan(t, s, Options{Engine: tc.engine, OutDir: dir})
				bySlot, _ := sessionRows(t, dir)
				if len(bySlot) != 2 {
					t.Fatalf("%d sessions, want 2", len(bySlot))
				}
				for _, rows := range bySlot {
					if len(rows) != 2*len(checkForms) {
						t.Fatalf("%d rows in a session, want %d", len(rows), 2*len(checkForms))
					}
					for _, r := range rows {
						want := results.None
						if strings.HasSuffix(r.Name, "_fail") {
							want = results.CheckFailed
						}
						if r.Error != want || r.Status != 200 {
							t.Errorf("%s: error %q status %d, want %q 200", r.Name, r.Error, r.Status, want)
						}
					}
				}
				if out.ErrorKinds["check_failed"] != int64(2*len(checkForms)) {
					t.Errorf("outcome errors %v", out.ErrorKinds)
				}
				for _, smp := range readSampleFile(t, dir) {
					name := strings.TrimPrefix(smp.Endpoint, "s.")
					form := strings.TrimSuffix(name, "_fail")
					if smp.Error == "check_failed" && !strings.HasPrefix(smp.Detail, fmt.Sprintf("check %q failed: ", form)) {
						t.Errorf("%s: sample detail %q", name, smp.Detail)
					}
				}
			})
		}
	}
}

// Checks of every kind on a JSON body, one of them failing, add no
// allocation per request to the loop's path.
func TestLoopChecksAllocateNothingPerRequest(t *testing.T) {
	if testing.Short() {
		t.Skip("a 1.5 s run")
	}
	if raceEnabled {
		t.Skip("the race detector's instrumentation allocates")
	}
	srv := serve(t, func(ctx *fasthttp.RequestCtx) {
		ctx.SetContentType("application/json")
		ctx.SetBodyString(testserver.JSONBody + "}")
	})
	perRequest := loopAllocationsPerRequest(t, srv.addr, func(s *compile.Schedule) {
		s.Requests[0].Checks = []compile.Check{
			{Name: "ok", Subject: plan.CheckJSON, Path: "items[1].id", Op: plan.CheckEquals, Value: "18", MinSize: -1, MaxSize: -1},
			{Name: "note", Subject: plan.CheckJSON, Path: "data.note", Op: plan.CheckContains, Value: "hello", MinSize: -1, MaxSize: -1},
			{Name: "gadget", Op: plan.CheckContains, Value: `"gadget"`, MinSize: -1, MaxSize: -1},
			{Name: "ids", Op: plan.CheckRegex, Value: `"id":"1[0-9]"`, MinSize: -1, MaxSize: -1},
			{Name: "type", Subject: plan.CheckHeader, Path: "Content-Type", Op: plan.CheckContains, Value: "json", MinSize: -1, MaxSize: -1},
			{Name: "small", Op: plan.CheckSize, MinSize: -1, MaxSize: 10}, // fails: every row is check_failed
		}
	})
	if perRequest > 0.2 {
		t.Fatalf("%.2f allocations per request with checks: the checks' path allocates", perRequest)
	}
}

// meta.json counts each check per endpoint, and check_rate judges the
// fraction that held: here half of them (every _fail step's check fails).
func TestCheckRateThreshold(t *testing.T) {
	addr := startTarget(t, testserver.Options{})
	src := checksPlan(addr, "", "") + "thresholds {\n  check_rate = 0.9\n}\n"
	s := compilePlan(t, src, nil)
	dir := filepath.Join(t.TempDir(), "run")
	out, _ := runPlan(t, s, Options{Engine: EngineLoop, OutDir: dir})
	var rate *results.ThresholdResult
	for i := range out.Thresholds {
		if out.Thresholds[i].Name == "check_rate" {
			rate = &out.Thresholds[i]
		}
	}
	if rate == nil || rate.OK || rate.Actual != 0.5 || rate.Limit != 0.9 {
		t.Fatalf("check_rate verdict %+v in %+v", rate, out.Thresholds)
	}
	m := readMeta(t, dir)
	if len(m.Checks) != 2*len(checkForms) || m.ExitStatus != "thresholds_failed" {
		t.Fatalf("meta.json: %d check tallies, exit status %q", len(m.Checks), m.ExitStatus)
	}
	for _, c := range m.Checks {
		wantFailed := int64(0)
		if strings.HasSuffix(c.Endpoint, "_fail") {
			wantFailed = 2
		}
		if c.Run != 2 || c.Failed != wantFailed {
			t.Errorf("tally %+v, want 2 runs, %d failed", c, wantFailed)
		}
	}
}
