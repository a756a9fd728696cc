package compile

import (
	"fmt"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/tressi/tressi/plan"
)

// compileErr loads and compiles src; it returns the first error's summary
// and detail, or "" when it compiled.
func compileErr(t *testing.T, src string, maxSlots int64, files map[string][]byte) (summary, detail string) {
	t.Helper()
	fsys := fstest.MapFS{"p.hcl": {Data: []byte(src)}}
	for name, data := range files {
		fsys[name] = &fstest.MapFile{Data: data}
	}
	p, _, diags := plan.Load(plan.Options{Path: "p.hcl", FS: fsys})
	if diags.HasErrors() {
		return diags[0].Summary, diags[0].Detail
	}
	p.MaxSlots = maxSlots
	_, diags = Compile(p)
	for _, d := range diags {
		if d.Severity == 1 { // hcl.DiagError
			if d.Subject == nil {
				t.Errorf("%q has no source range", d.Summary)
			}
			return d.Summary, d.Detail
		}
	}
	return "", ""
}

const limitTarget = "target \"t\" {\n  url = \"http://127.0.0.1:1\"\n}\n"

func stageOf(rate string) string {
	return fmt.Sprintf("load {\n  stage {\n    duration = \"1s\"\n    rate     = %s\n  }\n}\n", rate)
}

// Plans too large to run are refused with a diagnostic that says which
// limit and how to change it, before anything large is built.
func TestPlanSizeLimits(t *testing.T) {
	for _, tc := range []struct {
		name, src   string
		maxSlots    int64
		files       map[string][]byte
		wantSummary string // "" means it compiles
		wantDetail  string
	}{
		{name: "repeat 2^30", src: limitTarget + "scenario \"s\" {\n  step \"a\" {\n    path = \"/\"\n    repeat = 1073741824\n  }\n}\n" + stageOf("2"),
			wantSummary: "Too many requests per session", wantDetail: "1,073,741,824"},
		{name: "two steps over the session limit", src: limitTarget + "scenario \"s\" {\n  step \"a\" {\n    path = \"/\"\n    repeat = 600000\n  }\n  step \"b\" {\n    path = \"/\"\n    repeat = 600000\n  }\n}\n" + stageOf("1"),
			wantSummary: "Too many requests per session", wantDetail: "1,200,000"},
		{name: "2^31 requests in 1 s", src: limitTarget + "endpoint \"e\" {}\n" + stageOf("2147483648"),
			wantSummary: "Schedule too large", wantDetail: "--max-slots"},
		{name: "sessions times requests", src: limitTarget + "scenario \"s\" {\n  step \"a\" {\n    path = \"/\"\n    repeat = 1000\n  }\n}\n" + stageOf("200000"),
			wantSummary: "Schedule too large", wantDetail: "200,000,000"},
		{name: "under a lowered limit", src: limitTarget + "endpoint \"e\" {}\n" + stageOf("2000"), maxSlots: 1000,
			wantSummary: "Schedule too large", wantDetail: "2,000"},
		{name: "a raised limit lets it through", src: limitTarget + "endpoint \"e\" {}\n" + stageOf("2000"), maxSlots: 5000},
		{name: "too many users", src: limitTarget + "endpoint \"e\" {}\nload {\n  model = \"closed\"\n  stage {\n    duration = \"1s\"\n    users = 1073741824\n  }\n}\n",
			wantSummary: "Too many users", wantDetail: "1,073,741,824"},
		{name: "rendered body", src: limitTarget + "endpoint \"e\" {\n  body = join(\"\", [for i in range(1000) : join(\"\", [for j in range(70) : format(\"%01000d\", j)])])\n}\n" + stageOf("1"),
			wantSummary: "Body too large", wantDetail: "70,000,000"},
		{name: "file() too large", src: limitTarget + "endpoint \"e\" {\n  body = file(\"big.bin\")\n}\n" + stageOf("1"),
			files: map[string][]byte{"big.bin": []byte(strings.Repeat("x", MaxBodyBytes+1))}, wantSummary: "Invalid function argument", wantDetail: "too large"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			summary, detail := compileErr(t, tc.src, tc.maxSlots, tc.files)
			if summary != tc.wantSummary || !strings.Contains(detail, tc.wantDetail) {
				t.Errorf("got %q: %s\nwant %q mentioning %q", summary, detail, tc.wantSummary, tc.wantDetail)
			}
		})
	}
}
