package sys

import (
	"testing"
	"time"
)

// A receive stamp is wall-clock time; wallBase turns it into run time. A
// wall instant read now must come out as the run time now, within what a
// busy machine's reading of two clocks can be apart, and every later base
// read (one every baseEvery) as well.
func TestWallBaseDatesAStampAsRunTime(t *testing.T) {
	c := &Clock{Base: time.Now().Add(-time.Second)}
	var r RxStamps
	for i := range 3 {
		if i > 0 {
			time.Sleep(time.Duration(baseEvery) + time.Millisecond)
		}
		before := r.Now(c)
		stamp := time.Now().UnixNano() - r.wallBase
		after := c.Now()
		const margin = int64(2 * time.Millisecond) // a preempted test thread, not the base
		if stamp < before-margin || stamp > after+margin {
			t.Fatalf("read %d: a wall instant read at run time %d–%d converts to %d", i, before, after, stamp)
		}
		if r.baseAt <= 0 || r.baseAt > after {
			t.Fatalf("read %d: base read at %d, outside the run so far (%d)", i, r.baseAt, after)
		}
	}
}

// Between two base reads, Now only reads the clock.
func TestWallBaseIsReadOncePerPeriod(t *testing.T) {
	c := &Clock{Base: time.Now()}
	var r RxStamps
	r.Now(c)
	at, base := r.baseAt, r.wallBase
	r.wallBase = base + 12345 // a changed base would be overwritten by a read
	r.Now(c)
	if c.Now()-at >= baseEvery {
		t.Skip("the test thread was held a whole period between the two reads")
	}
	if r.baseAt != at || r.wallBase != base+12345 {
		t.Fatalf("Now read the base again %d ns after the last read (every %d)", c.Now()-at, baseEvery)
	}
}
