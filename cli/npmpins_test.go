package cli

import (
	"os"
	"regexp"
	"strings"
	"testing"
)

// Every `npm i` in docs/results.md names exact versions, the ones .ci/run
// installs and the readers test runs: an unpinned `npm i nodejs-polars`
// installed a release whose native part needs a newer Node than Debian's.
func TestResultsDocsPinTheReadersCIRuns(t *testing.T) {
	docs, err := os.ReadFile("../docs/results.md")
	if err != nil {
		t.Fatal(err)
	}
	ci, err := os.ReadFile("../.ci/run")
	if err != nil {
		t.Fatal(err)
	}
	pinned := map[string]string{} // package → version .ci/run installs
	for _, m := range regexp.MustCompile(`(@?[a-z][a-z0-9./-]*)@([0-9][0-9A-Za-z.-]*)`).FindAllSubmatch(ci, -1) {
		pinned[string(m[1])] = string(m[2])
	}
	installs := regexp.MustCompile(`npm i (.*)`).FindAllSubmatch(docs, -1)
	if len(installs) == 0 {
		t.Fatal("docs/results.md has no npm i line")
	}
	for _, m := range installs {
		for _, arg := range strings.Fields(string(m[1])) {
			if strings.HasPrefix(arg, "-") {
				continue
			}
			at := strings.LastIndex(arg, "@")
			if at <= 0 {
				t.Errorf("docs/results.md: npm i %s: %s has no version; pin the one .ci/run installs", m[1], arg)
				continue
			}
			name, version := arg[:at], arg[at+1:]
			if pinned[name] != version {
				t.Errorf("docs/results.md pins %s@%s, .ci/run installs %q", name, version, pinned[name])
			}
		}
	}
}
