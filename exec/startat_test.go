package exec

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestCheckStart(t *testing.T) {
	at := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name      string
		startAt   time.Time
		now       time.Time
		tolerance time.Duration
		refuse    bool
	}{
		{"no start time", time.Time{}, at, time.Second, false},
		{"in the future", at, at.Add(-time.Minute), time.Second, false},
		{"just now", at, at.Add(999 * time.Millisecond), time.Second, false},
		{"at the tolerance", at, at.Add(time.Second), time.Second, false},
		{"past the tolerance", at, at.Add(1001 * time.Millisecond), time.Second, true},
		{"default tolerance", at, at.Add(2 * time.Second), 0, true},
		{"wider tolerance", at, at.Add(39 * time.Second), time.Minute, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := checkStart(tc.startAt, tc.now, tc.tolerance)
			var late *LateStartError
			if got := errors.As(err, &late); got != tc.refuse {
				t.Fatalf("refused = %v (%v), want %v", got, err, tc.refuse)
			}
			if tc.refuse && !strings.Contains(err.Error(), "later --start-at") {
				t.Errorf("error %q does not say what to do", err)
			}
		})
	}
}

// A run whose start time passed long ago refuses before it makes its run
// directory: no burst, no half-made run to mistake for a shard.
func TestRunRefusesALateStart(t *testing.T) {
	srv := serve(t, ok)
	dir := filepath.Join(t.TempDir(), "run")
	_, err := Run(context.Background(), schedule(srv.addr, 10, time.Millisecond),
		Options{OutDir: dir, StartAt: time.Now().Add(-5 * time.Second)})
	var late *LateStartError
	if !errors.As(err, &late) || late.Tolerance != DefaultStartTolerance {
		t.Fatalf("err = %v, want a LateStartError with the default tolerance", err)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("the refused run made %s (%v)", dir, err)
	}
}

// meta.json says when the first request went out and how far from its due
// instant: what the merge compares across shards.
func TestMetaRecordsTheFirstSend(t *testing.T) {
	srv := serve(t, ok)
	start := time.Now().Add(300 * time.Millisecond)
	out, _ := runPlan(t, schedule(srv.addr, 20, time.Millisecond), Options{StartAt: start, StartTolerance: 3 * time.Second})
	data, err := os.ReadFile(filepath.Join(out.Dir, MetaFile))
	if err != nil {
		t.Fatal(err)
	}
	var m Meta
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	if m.FirstSend == nil || m.FirstSendSkewMs == nil || m.StartTolerance != "3s" {
		t.Fatalf("meta.json = %s, want first_send, first_send_skew_ms and start_tolerance 3s", data)
	}
	if m.FirstSend.Before(start) || *m.FirstSendSkewMs < 0 {
		t.Errorf("first send %s (skew %.3f ms) before instant zero %s", m.FirstSend, *m.FirstSendSkewMs, start)
	}
}
