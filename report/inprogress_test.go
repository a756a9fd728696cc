package report

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/tressi/tressi/results"
)

// report on a run whose meta.json says "running": with the process that
// runs it alive on this host (here, the test itself) it is a run in
// progress, not one killed or crashed; with a process that is gone it is
// the latter, as before.
func TestRunInProgressIsNotCalledKilled(t *testing.T) {
	host, err := os.Hostname()
	if err != nil {
		t.Skip("no hostname")
	}
	for _, tc := range []struct {
		name string
		pid  int
		want string
	}{
		{"alive", os.Getpid(), "RUN IN PROGRESS"},
		{"gone", 1 << 30, "PARTIAL RUN"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			env := fmt.Sprintf(`{"exit_status":"running","hostname":%q,"pid":%d}`, host, tc.pid)
			dir := writeRows(t, results.Meta{PlanName: "p", ScheduleHash: "h", Slots: 2000}, []string{"home"}, lateRows(1000, 1e5), env)
			rep, err := Build([]string{dir}, Options{})
			if err != nil {
				t.Fatal(err)
			}
			var text strings.Builder
			rep.Render(&text, Text)
			out := text.String()
			if !strings.HasPrefix(out, tc.want) {
				t.Fatalf("the report starts:\n%s", out[:min(len(out), 400)])
			}
			killed := strings.Contains(out, "killed")
			if tc.name == "alive" && (killed || !strings.Contains(out, fmt.Sprintf("still in progress (process %d on this host)", tc.pid))) {
				t.Fatalf("a run in progress:\n%s", out)
			}
			if tc.name == "gone" && !killed {
				t.Fatalf("a run whose process is gone is not said to be killed or crashed:\n%s", out)
			}
		})
	}
}
