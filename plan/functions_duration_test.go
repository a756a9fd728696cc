package plan

import (
	"fmt"
	"strings"
	"testing"
	"testing/fstest"
)

// seconds() turns any duration string into seconds, so a rate spread over
// a duration variable takes --var ramp=1m as well as 20s (the hold
// example's trimsuffix(…, "s") refused 1m); a non-duration says what it
// wants.
func TestSecondsSpreadsACountOverAnyDuration(t *testing.T) {
	for _, tc := range []struct {
		ramp     string
		wantRate float64
		wantErr  string
	}{
		{"20s", 50, ""},
		{"1m", 1000.0 / 60, ""},
		{"1m30s", 1000.0 / 90, ""},
		{"2500ms", 400, ""},
		{"soon", 0, `want a duration such as "250ms", "20s" or "1m30s" (got "soon")`},
	} {
		t.Run(tc.ramp, func(t *testing.T) {
			src := fmt.Sprintf(`
target "t" {
  url = "http://127.0.0.1:1"
}
endpoint "e" {}
load {
  stage {
    duration = "10s"
    rate     = 1000 / seconds(%q)
  }
}
`, tc.ramp)
			p, _, diags := Load(Options{Path: "p.hcl", FS: fstest.MapFS{"p.hcl": {Data: []byte(src)}}})
			if tc.wantErr != "" {
				if p != nil || !strings.Contains(describe(diags), tc.wantErr) {
					t.Fatalf("want an error with %q, got:\n%s", tc.wantErr, describe(diags))
				}
				return
			}
			if p == nil {
				t.Fatal(describe(diags))
			}
			if got := p.Load.Stages[0].From; got < tc.wantRate*(1-1e-9) || got > tc.wantRate*(1+1e-9) {
				t.Fatalf("rate %v, want %v", got, tc.wantRate)
			}
		})
	}
}
