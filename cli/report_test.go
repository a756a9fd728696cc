package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tressi/tressi/report/synth"
	"github.com/tressi/tressi/results"
)

func runCLI(args ...string) (int, string, string) {
	var out, errb bytes.Buffer
	code := Main(args, nil, strings.NewReader(""), &out, &errb)
	return code, out.String(), errb.String()
}

func TestReportCommand(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "run")
	if _, err := synth.WriteRun(dir, synth.Spec{Rows: 3000, Seed: 1, Rate: 1000}); err != nil {
		t.Fatal(err)
	}
	code, out, stderr := runCLI("report", dir)
	if code != ExitOK || !strings.Contains(out, "requests        3,000") {
		t.Fatalf("exit %d\n%s\n%s", code, out, stderr)
	}
	code, out, _ = runCLI("report", dir, "--format", "json")
	var doc map[string]any
	if code != ExitOK || json.Unmarshal([]byte(out), &doc) != nil || doc["requests"].(float64) != 3000 {
		t.Fatalf("json: exit %d, %.200s", code, out)
	}
	xlsx := filepath.Join(t.TempDir(), "r.xlsx")
	if code, _, stderr = runCLI("report", dir, "--format", "xlsx", "-o", xlsx); code != ExitOK {
		t.Fatalf("xlsx: exit %d: %s", code, stderr)
	}
	if b, err := os.ReadFile(xlsx); err != nil || !bytes.HasPrefix(b, []byte("PK")) {
		t.Fatalf("xlsx file: %v", err)
	}
}

func TestReportCommandErrors(t *testing.T) {
	a := filepath.Join(t.TempDir(), "a")
	synth.WriteRun(a, synth.Spec{Rows: 100, Seed: 1, Rate: 100, Hash: "one", Shard: results.Shard{Index: 0, Count: 2}})
	b := filepath.Join(t.TempDir(), "b")
	synth.WriteRun(b, synth.Spec{Rows: 100, Seed: 1, Rate: 100, Hash: "two", Shard: results.Shard{Index: 1, Count: 2}})
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"report", a, "--format", "pdf"}, `unknown report format "pdf"`},
		{[]string{"report", filepath.Join(a, "missing")}, "does not exist"},
		{[]string{"report", a, b}, "different schedules"},
		{[]string{"report", a, a}, "did you pass the same shard twice?"},
	} {
		code, _, stderr := runCLI(c.args...)
		if code != ExitInvalid || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit 1 and %q", c.args[1:], code, stderr, c.want)
		}
	}
}
