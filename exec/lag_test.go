package exec

import (
	"strings"
	"testing"
	"time"

	"github.com/tressi/tressi/exec/internal/record"
	"github.com/tressi/tressi/exec/internal/run"
)

// The progress line says when the generator falls behind its schedule.
func TestProgressSaysBehindSchedule(t *testing.T) {
	for _, tc := range []struct {
		lag  time.Duration
		want bool
	}{{2 * time.Second, true}, {time.Millisecond, false}} {
		ex := &run.Executor{Rec: record.NewRecorder(nil, 1, 1024)}
		ex.Rec.Lag.Store(int64(tc.lag))
		var out strings.Builder
		m := &monitor{ex: ex, out: &out, total: 10 * time.Second}
		m.print(int64(time.Second))
		if got := strings.Contains(out.String(), "behind schedule by 2s"); got != tc.want {
			t.Errorf("lag %v: progress %q", tc.lag, out.String())
		}
	}
}
