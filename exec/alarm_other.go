//go:build !linux

package exec

import "time"

// alarm is a no-op where there is no timerfd: the Go timer alone paces.
type alarm struct{}

func newAlarm() *alarm           { return nil }
func (*alarm) set(time.Duration) {}
func (*alarm) close()            {}
