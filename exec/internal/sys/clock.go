package sys

import "time"

// Clock is the run's single monotonic time base: every instant in the
// results is ns after it.
type Clock struct{ Base time.Time }

func (c *Clock) Now() int64 { return int64(time.Since(c.Base)) }
