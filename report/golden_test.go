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
	scenarios := writeRun(t, synth.Spec{Rows: 3000, Seed: 7, Rate: 1000, Sessions: true, BatchRows: 500})
	scenarioBase := writeRun(t, synth.Spec{Rows: 2000, Seed: 8, Rate: 1000, Sessions: true})
	for _, c := range []struct {
		name   string
		run    string
		format Format
		opts   Options
	}{
		{"report.txt", run, Text, Options{}},
		{"report.md", run, Markdown, Options{}},
		{"baseline.txt", run, Text, Options{Baseline: []string{base}}},
		{"baseline.md", run, Markdown, Options{Baseline: []string{base}}},
		{"scenarios.txt", scenarios, Text, Options{}},
		{"scenarios.md", scenarios, Markdown, Options{}},
		{"scenarios-baseline.txt", scenarios, Text, Options{Baseline: []string{scenarioBase}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			rep, err := Build([]string{c.run}, c.opts)
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
