package plan

import (
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/hashicorp/hcl/v2"
)

const searchHCL = `
target "t" {
  url = "http://127.0.0.1:8080"
}
endpoint "e" {
  path = "/"
}
load {
  search {
    from = 100
    to   = 5000
  }
}
thresholds {
  p99 = "50ms"
}
`

const searchJSON = `{
  "target": {"t": {"url": "http://127.0.0.1:8080"}},
  "endpoint": {"e": {"path": "/"}},
  "load": {"search": {"from": 100, "to": 5000}},
  "thresholds": {"p99": "50ms"}
}`

// A search block with only its required attributes takes the documented
// defaults, in HCL and in JSON alike.
func TestSearchDefaults(t *testing.T) {
	want := Search{From: 100, To: 5000, Hold: 10 * time.Second, Warmup: 2 * time.Second, Cooldown: 2 * time.Second,
		Precision: 0.05, MaxProbes: 12, Growth: 2}
	for name, src := range map[string]string{"p.hcl": searchHCL, "p.hcl.json": searchJSON} {
		p := mustLoad(t, Options{Path: name, FS: fstest.MapFS{name: {Data: []byte(src)}}})
		got := *p.Load.Search
		got.DeclRange = want.DeclRange
		if got != want {
			t.Errorf("%s: search %+v, want %+v", name, got, want)
		}
		if len(p.Load.Stages) != 0 {
			t.Errorf("%s: stages %v", name, p.Load.Stages)
		}
	}
}

func TestSearchErrors(t *testing.T) {
	tests := []struct{ name, load, thresholds, want string }{
		{"stages mixed", `stage {
    duration = "1s"
    rate = 1
  }
  search {
    from = 1
    to = 2
  }`, `p99 = "1s"`, "Search and stages mixed"},
		{"no thresholds", `search {
    from = 1
    to = 2
  }`, `abort = false`, "Search without thresholds"},
		{"to below from", `search {
    from = 10
    to = 2
  }`, `p99 = "1s"`, "Invalid search to"},
		{"zero from", `search {
    from = 0
    to = 2
  }`, `p99 = "1s"`, "Invalid search from"},
		{"two searches", `search {
    from = 1
    to = 2
  }
  search {
    from = 1
    to = 2
  }`, `p99 = "1s"`, "Duplicate search block"},
		{"fractional users", `model = "closed"
  search {
    from = 1.5
    to = 20
  }`, `p99 = "1s"`, "Fractional users"},
		{"negative warmup", `search {
    from = 1
    to = 2
    warmup = "-1s"
  }`, `p99 = "1s"`, "Invalid duration"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			src := "target \"t\" {\n  url = \"http://127.0.0.1:1\"\n}\nendpoint \"e\" {}\nload {\n  " + tc.load + "\n}\nthresholds {\n  " + tc.thresholds + "\n}\n"
			_, _, diags := Load(Options{Path: "p.hcl", FS: fstest.MapFS{"p.hcl": {Data: []byte(src)}}})
			found := false
			for _, d := range diags {
				found = found || d.Summary == tc.want
			}
			if !found {
				t.Fatalf("want %q in:\n%s", tc.want, describe(diags))
			}
		})
	}
}

func TestSearchShortHoldWarning(t *testing.T) {
	few := func(src string) *hcl.Diagnostic {
		t.Helper()
		_, _, diags := Load(Options{Path: "p.hcl", FS: fstest.MapFS{"p.hcl": {Data: []byte(src)}}})
		if diags.HasErrors() {
			t.Fatal(describe(diags))
		}
		for _, d := range diags {
			if d.Summary == "Few requests per probe" {
				return d
			}
		}
		return nil
	}
	src := strings.Replace(searchHCL, "to   = 5000", "to   = 5000\n    hold = \"5s\"", 1)
	src = strings.Replace(src, "from = 100", "from = 50", 1) // 250 judged requests for a p99
	if d := few(src); d == nil || !strings.Contains(d.Detail, "Lengthen hold to 20s") {
		t.Fatalf("want the warning with a 20s hold, got %v", d)
	}
	if d := few(searchHCL); d != nil { // 100 req/s × 10 s = 1000: enough
		t.Fatalf("unexpected: %v", d)
	}
}
