package exec

import (
	"testing"
	"time"
)

// SetUp hears which engine is about to start, once: the CLI's
// process-wide settings depend on it.
func TestSetUpNamesTheEngine(t *testing.T) {
	forEngines(t, func(t *testing.T, engine string) {
		srv := serve(t, ok)
		var names []string
		out, rows := runPlan(t, schedule(srv.addr, 20, time.Millisecond), Options{Engine: engine,
			SetUp: func(e string) { names = append(names, e) }})
		if len(names) != 1 || names[0] != engine {
			t.Errorf("SetUp heard %q, want [%q] once", names, engine)
		}
		if out.Engine != engine {
			t.Errorf("the run says engine %q, want %q", out.Engine, engine)
		}
		checkOneRowPerSlot(t, rows, 20)
	})
}
