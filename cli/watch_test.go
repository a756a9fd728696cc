package cli

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/tressi/tressi/testserver"
)

// Four shards on loopback, each serving its dashboard while it waits for
// the shared --start-at and runs; tressi watch merges their streams, and
// its final totals equal tressi report over the four run directories.
func TestWatchFourShards(t *testing.T) {
	_, addr, err := testserver.StartLoopback(t)
	if err != nil {
		t.Fatal(err)
	}
	plan := livePlan(t, addr, 3)
	start := time.Now().Add(4 * time.Second).UTC().Format(time.RFC3339Nano)
	base := t.TempDir()
	var dirs, urls []string
	var waits []func() (int, string)
	for i := range 4 {
		dir := filepath.Join(base, fmt.Sprintf("shard-%d", i))
		stderr, wait := applyLive(t, plan, "-q", "-o", dir, "--shard", fmt.Sprintf("%d/4", i), "--start-at", start,
			"--dashboard=:0", "--dashboard-linger=2s")
		dirs, waits = append(dirs, dir), append(waits, wait)
		urls = append(urls, waitForURL(t, stderr))
	}
	code, out, stderr := run(t, nil, append([]string{"watch", "--json"}, urls...)...)
	if code != 0 {
		t.Fatalf("watch exit %d:\n%s", code, stderr)
	}
	for i, wait := range waits {
		if code, _ := wait(); code != 0 {
			t.Fatalf("shard %d exit %d", i, code)
		}
	}
	code, repOut, repErr := run(t, nil, append([]string{"report", "--format", "json"}, dirs...)...)
	if code != 0 {
		t.Fatalf("report exit %d:\n%s", code, repErr)
	}
	type totals struct {
		Requests, OK, Errors int64
		Latency              map[string]float64 `json:"latency_ms"`
		Endpoints            []struct {
			Name                 string
			Requests, OK, Errors int64
			Latency              map[string]float64 `json:"latency_ms"`
		}
	}
	var got, want totals
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("watch --json: %v\n%s", err, out)
	}
	if err := json.Unmarshal([]byte(repOut), &want); err != nil {
		t.Fatal(err)
	}
	if want.Requests != 600 || want.Errors == 0 {
		t.Fatalf("the shards ran %d requests with %d errors; the plan has 600, some of them 404s", want.Requests, want.Errors)
	}
	if g, w := fmt.Sprint(got), fmt.Sprint(want); g != w {
		t.Fatalf("watch says\n%s\nthe report\n%s", g, w)
	}
}
