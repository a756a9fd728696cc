package cli

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// TestFlagsAgreeAcrossCommands: a flag that means the same thing has the
// same name and the same shorthand on every command.
func TestFlagsAgreeAcrossCommands(t *testing.T) {
	shorthand := map[string]string{"out": "o", "quiet": "q"}
	root := newRoot(&env{})
	var walk func(*cobra.Command)
	seen := map[string]int{}
	walk = func(c *cobra.Command) {
		c.LocalFlags().VisitAll(func(f *pflag.Flag) {
			if f.Hidden {
				return
			}
			if f.Name == "output" {
				t.Errorf("%s: --output; every command says --out", c.CommandPath())
			}
			if want, ok := shorthand[f.Name]; ok {
				seen[f.Name]++
				if f.Shorthand != want {
					t.Errorf("%s --%s: shorthand %q, want -%s as on every other command", c.CommandPath(), f.Name, f.Shorthand, want)
				}
			}
		})
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
	if seen["out"] < 4 || seen["quiet"] < 2 {
		t.Errorf("flags seen %v; want --out on plan, apply, demo and report, --quiet on apply and demo", seen)
	}
}

// TestUnknownFlagPointsToTheCommandsHelp: the help that answers a flag
// mistake is the subcommand's.
func TestUnknownFlagPointsToTheCommandsHelp(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"apply", "--bogus"}, "Run 'tressi apply --help' for usage."},
		{[]string{"report", "-z", "x"}, "Run 'tressi report --help' for usage."},
		{[]string{"bogus"}, "Run 'tressi --help' for usage."},
	} {
		code, _, errs := run(t, nil, tc.args...)
		if code != ExitInvalid || !strings.Contains(errs, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want 1 and %q", tc.args, code, errs, tc.want)
		}
	}
}

// TestOutShorthandEverywhere: -o works on plan (and report), where apply
// once said "unknown shorthand flag: 'o'".
func TestOutShorthandEverywhere(t *testing.T) {
	out := filepath.Join(t.TempDir(), "x.tplan")
	if code, _, errs := run(t, nil, "plan", "../examples/quickstart.hcl", "-o", out); code != ExitOK {
		t.Fatalf("plan -o: exit %d: %s", code, errs)
	}
	if _, err := os.Stat(out); err != nil {
		t.Error(err)
	}
	if code, _, errs := run(t, nil, "apply", "-o"); code != ExitInvalid || strings.Contains(errs, "unknown shorthand") {
		t.Errorf("apply -o: exit %d: %s", code, errs)
	}
}

// TestDocsSpellFlagsAsHelpDoes: README and docs write --var, --var-file and
// --out, as --help shows them (a single dash still works).
func TestDocsSpellFlagsAsHelpDoes(t *testing.T) {
	single := regexp.MustCompile(`(^|[^-\w])-(var-file|var|out|quiet|json|shard|start-at|engine|format|baseline)\b`)
	docs, _ := filepath.Glob("../docs/*.md")
	for _, path := range append(docs, "../README.md") {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range strings.Split(string(b), "\n") {
			if m := single.FindString(line); m != "" {
				t.Errorf("%s:%d: %q: write the flag as --help shows it (--%s)", path, i+1, strings.TrimSpace(m), single.FindStringSubmatch(line)[2])
			}
		}
	}
}
