//go:build !linux

package sys

import "time"

// Alarm is a no-op where there is no timerfd: the Go timer alone paces.
type Alarm struct{}

func NewAlarm() *Alarm           { return nil }
func (*Alarm) Set(time.Duration) {}
func (*Alarm) Close()            {}

// LowerThreadPriority: SCHED_IDLE is Linux's; elsewhere the recorder runs at
// the process's priority.
func LowerThreadPriority() {}

// Yield is a no-op here: the recorder runs at the process's priority.
func Yield() {}
