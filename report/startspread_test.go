package report

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tressi/tressi/report/synth"
	"github.com/tressi/tressi/results"
)

// setFirstSend adds apply's start fields to a synthetic run's meta.json.
func setFirstSend(t *testing.T, dir string, at time.Time, tolerance string) {
	t.Helper()
	path := filepath.Join(dir, "meta.json")
	m := map[string]any{}
	if data, err := os.ReadFile(path); err == nil {
		_ = json.Unmarshal(data, &m)
	}
	m["first_send"], m["start_tolerance"] = at, tolerance
	data, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestShardsStartingApartAreAWarning(t *testing.T) {
	zero := time.Unix(0, synth.Spec{}.Meta().StartUnixNs)
	for _, tc := range []struct {
		name      string
		apart     time.Duration
		tolerance string
		warn      bool
	}{
		{"together", 300 * time.Millisecond, "1s", false},
		{"at the tolerance", time.Second, "1s", false},
		{"apart", 2500 * time.Millisecond, "1s", true},
		{"apart within a wider tolerance", 2500 * time.Millisecond, "5s", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := writeRun(t, synth.Spec{Rows: 1000, Seed: 1, Rate: 1000, Shard: results.Shard{Index: 0, Count: 2}})
			b := writeRun(t, synth.Spec{Rows: 1000, Seed: 1, Rate: 1000, Shard: results.Shard{Index: 1, Count: 2}})
			setFirstSend(t, a, zero.Add(time.Millisecond), tc.tolerance)
			setFirstSend(t, b, zero.Add(time.Millisecond+tc.apart), tc.tolerance)
			rep, err := Build([]string{a, b}, Options{})
			if err != nil {
				t.Fatal(err)
			}
			w := strings.Join(rep.Warnings, "\n")
			got := strings.Contains(w, "sent their first requests 2.5s apart") && strings.Contains(w, "1/2 +2.5s")
			if got != tc.warn {
				t.Errorf("warn = %v, want %v; warnings:\n%s", got, tc.warn, w)
			}
		})
	}
}

func TestManyMissingShardsAreSummarised(t *testing.T) {
	s := synth.Spec{Rows: 60000, Seed: 1, Rate: 1000, Shard: results.Shard{Index: 0, Count: 20000}}
	rep, err := Build([]string{writeRun(t, s)}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	w := strings.Join(rep.Warnings, "\n")
	want := "shards 1/20000–19999/20000 of this run were not passed: the report covers 1 of 20000 shards"
	if !strings.Contains(w, want) || len(w) > 400 {
		t.Errorf("warnings (%d bytes) = %q, want %q and a short text", len(w), w, want)
	}
}

func TestShardRanges(t *testing.T) {
	for _, tc := range []struct {
		indices []int
		n       int
		want    string
	}{
		{[]int{0, 2}, 3, "0/3, 2/3"},
		{[]int{1, 2, 3}, 4, "1/4–3/4"},
		{[]int{0, 1, 3, 5, 6, 7}, 8, "0/8–1/8, 3/8, 5/8–7/8"},
		{[]int{0, 2, 4, 6, 8, 10, 12, 14, 16, 18}, 20, "0/20, 2/20, 4/20, 6/20, 8/20, 10/20, 12/20, 14/20 and 2 more"},
	} {
		if got := shardRanges(tc.indices, tc.n); got != tc.want {
			t.Errorf("shardRanges(%v, %d) = %q, want %q", tc.indices, tc.n, got, tc.want)
		}
	}
}
