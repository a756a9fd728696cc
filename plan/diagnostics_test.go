package plan

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
)

// want is one expected error diagnostic, written in a testdata file as
// "# want: LINE:COLUMN summary substring".
type want struct {
	line, column int
	summary      string
}

func readWants(t *testing.T, path string) []want {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var wants []want
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		rest, ok := strings.CutPrefix(sc.Text(), "# want: ")
		if !ok {
			continue
		}
		var w want
		pos, summary, _ := strings.Cut(rest, " ")
		if _, err := fmt.Sscanf(pos, "%d:%d", &w.line, &w.column); err != nil {
			t.Fatalf("%s: bad want line %q", path, sc.Text())
		}
		w.summary = summary
		wants = append(wants, w)
	}
	if len(wants) == 0 {
		t.Fatalf("%s has no '# want:' line", path)
	}
	return wants
}

// TestInvalidPlans loads every testdata/invalid plan and checks that it gets
// exactly the expected errors, one per mistake, each at its line and column.
func TestInvalidPlans(t *testing.T) {
	paths, _ := filepath.Glob("testdata/invalid/*.hcl")
	if len(paths) < 40 {
		t.Fatalf("found only %d invalid plans", len(paths))
	}
	for _, path := range paths {
		t.Run(strings.TrimSuffix(filepath.Base(path), ".hcl"), func(t *testing.T) {
			wants := readWants(t, path)
			p, files, diags := Load(Options{Path: path})
			if p != nil {
				t.Errorf("Load returned a plan despite errors")
			}
			if files[path] == nil {
				t.Errorf("files lacks %s", path)
			}
			errs := errorsOf(diags)
			if len(errs) != len(wants) {
				t.Fatalf("got %d errors, want %d:\n%s", len(errs), len(wants), describe(errs))
			}
			for i, w := range wants {
				d := errs[i]
				if d.Subject == nil {
					t.Errorf("error %d %q has no range", i, d.Summary)
					continue
				}
				if d.Subject.Start.Line != w.line || d.Subject.Start.Column != w.column || !strings.Contains(d.Summary, w.summary) {
					t.Errorf("error %d: got %d:%d %q, want %d:%d %q (detail: %s)",
						i, d.Subject.Start.Line, d.Subject.Start.Column, d.Summary, w.line, w.column, w.summary, d.Detail)
				}
				if d.Detail == "" && !strings.HasPrefix(d.Summary, "Missing newline") {
					t.Errorf("error %d %q has no detail saying how to fix it", i, d.Summary)
				}
			}
		})
	}
}

// errorsOf returns the error diagnostics in source order.
func errorsOf(diags hcl.Diagnostics) hcl.Diagnostics {
	var errs hcl.Diagnostics
	for _, d := range diags {
		if d.Severity == hcl.DiagError {
			errs = append(errs, d)
		}
	}
	sort.SliceStable(errs, func(i, j int) bool {
		a, b := errs[i].Subject, errs[j].Subject
		if a == nil || b == nil {
			return b != nil
		}
		return a.Start.Byte < b.Start.Byte
	})
	return errs
}

func describe(diags hcl.Diagnostics) string {
	var b strings.Builder
	for _, d := range diags {
		fmt.Fprintf(&b, "  %s\n", d.Error())
		if d.Detail != "" {
			fmt.Fprintf(&b, "    %s\n", d.Detail)
		}
	}
	return b.String()
}
