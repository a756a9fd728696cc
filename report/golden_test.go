package report

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/tressi/tressi/report/synth"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden from the current output")

// TestGolden pins the text and Markdown layouts of a fixed fixture. Run with
// -update after an intended change and review the diff.
func TestGolden(t *testing.T) {
	run := writeRun(t, synth.Spec{Rows: 5000, Seed: 7, Rate: 1000})
	base := writeRun(t, synth.Spec{Rows: 4000, Seed: 8, Rate: 1000})
	for _, c := range []struct {
		name   string
		format Format
		opts   Options
	}{
		{"report.txt", Text, Options{}},
		{"report.md", Markdown, Options{}},
		{"baseline.txt", Text, Options{Baseline: []string{base}}},
		{"baseline.md", Markdown, Options{Baseline: []string{base}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			rep, err := Build([]string{run}, c.opts)
			if err != nil {
				t.Fatal(err)
			}
			var buf bytes.Buffer
			if err := rep.Render(&buf, c.format); err != nil {
				t.Fatal(err)
			}
			got := buf.Bytes()
			path := filepath.Join("testdata", c.name+".golden")
			if *update {
				if err := os.MkdirAll("testdata", 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, got, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run go test ./report -run TestGolden -update)", err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("%s differs from %s:\n%s", c.name, path, firstDiff(string(got), string(want)))
			}
		})
	}
}

func firstDiff(got, want string) string {
	g, w := strings.Split(got, "\n"), strings.Split(want, "\n")
	for i := range max(len(g), len(w)) {
		var gl, wl string
		if i < len(g) {
			gl = g[i]
		}
		if i < len(w) {
			wl = w[i]
		}
		if gl != wl {
			return "line " + strconv.Itoa(i+1) + ":\n got: " + gl + "\nwant: " + wl
		}
	}
	return ""
}
