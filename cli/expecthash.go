package cli

import (
	"fmt"
	"strings"
)

// minHashPrefix is the shortest --expect-hash accepted: 12 hex digits (48
// bits) is what people copy from a summary, and still never matches another
// plan by chance.
const minHashPrefix = 12

// checkExpectedHash compares the schedule a shard is about to run with the
// one the operator planned. Shards that compile a plan's sources on their
// own machines must all run the same schedule; a different variable, file or
// tressi version would silently split one run into several.
func checkExpectedHash(expect, got string) error {
	if expect == "" {
		return nil
	}
	want := strings.ToLower(strings.TrimPrefix(strings.TrimSpace(expect), "sha256:"))
	hex := strings.TrimPrefix(got, "sha256:")
	if len(want) < minHashPrefix || strings.Trim(want, "0123456789abcdef") != "" {
		return fmt.Errorf("--expect-hash %q: want the schedule hash `tressi plan` prints (sha256:<64 hex digits>, or at least its first %d hex digits)",
			expect, minHashPrefix)
	}
	if !strings.HasPrefix(hex, want) {
		return fmt.Errorf("refusing to run: the plan compiles to schedule %s here, but --expect-hash is %s. "+
			"The sources, the variables (-var, -var-file, TRESSI_VAR_*) or the tressi version differ from where it was planned; "+
			"run `tressi plan` with the same inputs to see which hash they give", got, expect)
	}
	return nil
}
