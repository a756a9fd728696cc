package sys

import (
	"os"
	"time"

	"golang.org/x/sys/unix"
)

// Alarm cuts the runtime's idle wait short at a given instant. An idle Go
// process waits for its next timer in epoll_wait, whose timeout counts whole
// milliseconds: a 100 µs timer fires up to a millisecond late. A timerfd
// armed for the same instant and registered with the runtime's poller (no
// goroutine reads it) wakes epoll_wait on time; the runtime then finds the
// expired Go timer. One timerfd_settime per pacer sleep is its whole cost.
type Alarm struct {
	f    *os.File // keeps the descriptor registered with the poller
	fd   int
	spec unix.ItimerSpec
}

func NewAlarm() *Alarm {
	fd, err := unix.TimerfdCreate(unix.CLOCK_MONOTONIC, unix.TFD_NONBLOCK|unix.TFD_CLOEXEC)
	if err != nil {
		return nil // the Go timer alone, late by up to a millisecond
	}
	// A non-blocking descriptor is registered with the runtime's poller.
	return &Alarm{f: os.NewFile(uintptr(fd), "tressi-alarm"), fd: fd}
}

// Set arms the alarm d from now.
func (a *Alarm) Set(d time.Duration) {
	if a == nil {
		return
	}
	a.spec.Value = unix.NsecToTimespec(int64(d))
	_ = unix.TimerfdSettime(a.fd, 0, &a.spec, nil) // best effort: the Go timer still fires
}

func (a *Alarm) Close() {
	if a != nil {
		a.f.Close()
	}
}
