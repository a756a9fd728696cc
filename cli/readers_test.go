package cli

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/tressi/tressi/report/synth"
	"github.com/tressi/tressi/results"
)

// readerModules is where .ci/run installs the readers' npm packages.
func readerModules() string {
	for _, dir := range []string{os.Getenv("TRESSI_INTEROP_NODE_MODULES"), "../.cache/interop/node_modules"} {
		if dir == "" {
			continue
		}
		if st, err := os.Stat(dir); err == nil && st.IsDir() {
			abs, _ := filepath.Abs(dir)
			return abs
		}
	}
	return ""
}

// readerOutput is what every snippet of docs/readers prints.
type readerOutput struct {
	Rows         int            `json:"rows"`
	LatencySumNs string         `json:"latency_sum_ns"`
	Endpoints    map[string]int `json:"endpoints"`
	// SlotSum and ScheduledSumNs are the sums of the columns stored as
	// deltas, which a snippet derives (duckdb.mjs, never run here, does
	// not print them).
	SlotSum        string `json:"slot_sum,omitempty"`
	ScheduledSumNs string `json:"scheduled_sum_ns,omitempty"`
}

// TestReaderSnippetsReadOurFiles runs each snippet that docs/results.md
// shows (the files of docs/readers, word for word) on a results file and
// checks what it read against the file itself. A reader whose packages are
// not installed is skipped with the reason.
func TestReaderSnippetsReadOurFiles(t *testing.T) {
	doc, err := os.ReadFile("../docs/results.md")
	if err != nil {
		t.Fatal(err)
	}
	run := filepath.Join(t.TempDir(), "run")
	if _, err := synth.WriteRun(run, synth.Spec{Rows: 70_000, Seed: 7, Rate: 1000, Sessions: true}); err != nil { // a full batch (columns of several zstd blocks) and a short one; sessions, whose rows interleave, so slots go back and forth
		t.Fatal(err)
	}
	resultsFile := filepath.Join(run, "results.arrow")
	want := readTruth(t, resultsFile)
	csvFile := filepath.Join(t.TempDir(), "rows.csv")
	if code, _, errs := runCLI("report", run, "--format", "csv", "-o", csvFile); code != ExitOK {
		t.Fatalf("report --format csv: exit %d: %s", code, errs)
	}
	mods := readerModules()
	for _, tc := range []struct {
		snippet  string
		packages []string // under node_modules
		input    string
		offline  string // output meaning the reader needs the network, which it may not have
	}{
		{"arrow-js.mjs", []string{"apache-arrow", "fzstd"}, resultsFile, ""},
		{"polars.mjs", []string{"nodejs-polars"}, resultsFile, ""},
		{"duckdb.mjs", []string{"@duckdb/node-api"}, resultsFile, "Failed to download extension"},
		{"duckdb-csv.mjs", []string{"@duckdb/node-api"}, csvFile, ""},
		{"pyarrow.py", nil, resultsFile, ""},
	} {
		t.Run(tc.snippet, func(t *testing.T) {
			src, err := os.ReadFile(filepath.Join("../docs/readers", tc.snippet))
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(doc), string(src)) {
				t.Errorf("docs/results.md does not show docs/readers/%s word for word", tc.snippet)
			}
			cmd := snippetCommand(t, tc.snippet, src, mods, tc.packages)
			cmd.Args = append(cmd.Args, tc.input)
			out, err := cmd.CombinedOutput()
			if tc.offline != "" && strings.Contains(string(out), tc.offline) {
				t.Skipf("%s needs a download this machine cannot make: %s", tc.snippet, firstLine(string(out), tc.offline))
			}
			if err != nil {
				t.Fatalf("%s: %v\n%s", tc.snippet, err, out)
			}
			var got readerOutput
			if err := json.Unmarshal([]byte(lastLine(string(out))), &got); err != nil {
				t.Fatalf("%v: %s", err, out)
			}
			if tc.snippet == "duckdb.mjs" {
				got.SlotSum, got.ScheduledSumNs = want.SlotSum, want.ScheduledSumNs
			}
			if got.Rows != want.Rows || got.LatencySumNs != want.LatencySumNs || !sameCounts(got.Endpoints, want.Endpoints) ||
				got.SlotSum != want.SlotSum || got.ScheduledSumNs != want.ScheduledSumNs {
				t.Errorf("%s read %+v; the file holds %+v", tc.snippet, got, want)
			}
		})
	}
}

// snippetCommand runs a snippet from a directory beside node_modules (ES
// modules ignore NODE_PATH), or with python3; it skips when the reader's
// packages are missing.
func snippetCommand(t *testing.T, name string, src []byte, mods string, packages []string) *exec.Cmd {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, name), src, 0o644); err != nil {
		t.Fatal(err)
	}
	if strings.HasSuffix(name, ".py") {
		py, err := exec.LookPath("python3")
		if err != nil || exec.Command(py, "-c", "import pyarrow").Run() != nil {
			t.Skip("pyarrow is not installed: PyPI is not reachable here and Debian has no python3-pyarrow, so this snippet is not run")
		}
		return exec.Command(py, filepath.Join(dir, name))
	}
	node, err := exec.LookPath("node")
	if err != nil || mods == "" {
		t.Skip("node or the readers' npm packages are missing (.ci/run installs them into .cache/interop)")
	}
	for _, p := range packages {
		if _, err := os.Stat(filepath.Join(mods, p)); err != nil {
			t.Skipf("npm package %s is not installed (.ci/run installs it into .cache/interop)", p)
		}
	}
	if err := os.Symlink(mods, filepath.Join(dir, "node_modules")); err != nil {
		t.Fatal(err)
	}
	return exec.Command(node, filepath.Join(dir, name))
}

// readTruth reads the file with tressi's own reader.
func readTruth(t *testing.T, path string) readerOutput {
	r, err := results.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	truth := readerOutput{Endpoints: map[string]int{}}
	var sum, slots, scheduled int64
	for {
		b, ok := r.Next()
		if !ok {
			break
		}
		for i := 0; i < b.Len; i++ {
			truth.Rows++
			truth.Endpoints[b.EndpointNames[b.Endpoint[i]]]++
			slots += int64(b.Slot[i])
			scheduled += b.Scheduled[i]
			if b.Latency[i] >= 0 {
				sum += b.Latency[i]
			}
		}
	}
	if err := r.Err(); err != nil {
		t.Fatal(err)
	}
	truth.LatencySumNs = strconv.FormatInt(sum, 10)
	truth.SlotSum, truth.ScheduledSumNs = strconv.FormatInt(slots, 10), strconv.FormatInt(scheduled, 10)
	return truth
}

func sameCounts(a, b map[string]int) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return lines[len(lines)-1]
}

func firstLine(s, containing string) string {
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, containing) {
			return strings.TrimSpace(l)
		}
	}
	return ""
}
